/*
Copyright 2026 The memcached-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
	"k8s.io/client-go/rest"
)

// apiserverProfile is kube-apiserver's CPU profile over a window, its CPU attributed to what the
// server was doing (profileCategory).
type apiserverProfile struct {
	// Path is the saved profile (go tool pprof -top <kube-apiserver> <path>).
	Path string `json:"path"`
	// Seconds is the window; CPU the CPU seconds sampled in it.
	Seconds float64 `json:"seconds"`
	CPU     float64 `json:"cpuSeconds"`
	// ByCategory is the CPU seconds of each profileCategory.
	ByCategory map[string]float64 `json:"byCategory"`
}

// profileCategories attribute a sample of kube-apiserver's CPU profile to what it served, by the
// functions on its stack: the first category one of whose markers is a substring of a function
// on the stack wins, so the order matters (a watch is served by ListResource, so watches come
// before lists; a handler's own work comes before the filters every request passes). The markers
// are the request handlers of k8s.io/apiserver/pkg/endpoints/handlers, its watch cache
// (storage/cacher) and the Go runtime's collector. Written here because a CPU profile has no notion
// of a request's verb: pprof's own grouping (-tagfocus, -focus) works one pattern at a time.
var profileCategories = []struct{ name, markers string }{
	{"watch: sending events to watchers", "handlers.serveWatch|(*WatchServer)|handlers.(*watchEncoder)|cacher.(*cacheWatcher)|(*Cacher).dispatchEvent"},
	{"watch cache: events from etcd", "cacher.(*watchCache)|etcd3.(*watchChan)|(*Cacher).processEvent|cacher.(*Cacher).startCaching"},
	// A write's storage work runs in a goroutine of its own (finisher.FinishRequest), below the
	// registry's Store, not below the handler: a patch is the Store's Update, with the patcher's
	// closures on the stack.
	{"patch", "handlers.PatchResource|handlers.(*patcher)"},
	{"create", "handlers.createHandler|handlers.CreateResource|handlers.CreateNamedResource|registry.(*Store).Create"},
	{"update", "handlers.UpdateResource|registry.(*Store).Update"},
	{"delete", "handlers.DeleteResource|handlers.DeleteCollection|registry.(*Store).Delete"},
	{"get", "handlers.getResourceHandler|handlers.GetResource|registry.(*Store).Get"},
	{"list", "handlers.ListResource|registry.(*Store).List"},
	{"request filters (authn, authz, priority and fairness, audit)", "endpoints/filters.|server/filters.|apiserver/pkg/audit."},
	{"etcd client", "go.etcd.io/etcd/client|google.golang.org/grpc"},
	{"connections (TLS, HTTP/2)", "crypto/tls.|golang.org/x/net/http2.|net/http.(*http2"},
	{"Go runtime: garbage collection", "runtime.gcBgMarkWorker|runtime.bgsweep|runtime.bgscavenge|runtime.gcAssistAlloc"},
}

// otherCategory collects the samples no category claims.
const otherCategory = "other"

// profileCategory returns the category of a stack of function names (leaf first).
func profileCategory(funcs []string) string {
	for _, c := range profileCategories {
		for _, m := range strings.Split(c.markers, "|") {
			if slices.ContainsFunc(funcs, func(f string) bool { return strings.Contains(f, m) }) {
				return c.name
			}
		}
	}
	return otherCategory
}

// attribute parses a CPU profile and returns its CPU seconds in all and by profileCategory.
func attribute(data []byte) (total float64, by map[string]float64, err error) {
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		return 0, nil, fmt.Errorf("failed to parse the CPU profile: %w", err)
	}
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			idx = i
		}
	}
	if idx < 0 {
		return 0, nil, fmt.Errorf("the profile has no cpu/nanoseconds samples")
	}
	by = map[string]float64{}
	for _, s := range p.Sample {
		var funcs []string
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				if l.Function != nil {
					funcs = append(funcs, l.Function.Name)
				}
			}
		}
		sec := float64(s.Value[idx]) / 1e9
		by[profileCategory(funcs)] += sec
		total += sec
	}
	return total, by, nil
}

// profileRun is a CPU profile being taken.
type profileRun struct {
	done chan struct{}
	res  *apiserverProfile
	err  error
}

// startProfile starts taking kube-apiserver's CPU profile for -apiserver-profile (nothing when it
// is 0), saved as <results>/<UTC time>-<name>-apiserver.pprof.
func (b *bench) startProfile(ctx context.Context, name string) *profileRun {
	r := &profileRun{done: make(chan struct{})}
	if b.cfg.profile <= 0 {
		close(r.done)
		return r
	}
	go func() {
		defer close(r.done)
		r.res, r.err = b.takeProfile(ctx, name, b.cfg.profile)
	}()
	return r
}

// wait returns the profile once its window has passed (nil when none was taken).
func (r *profileRun) wait() (*apiserverProfile, error) {
	<-r.done
	return r.res, r.err
}

// takeProfile asks kube-apiserver for its CPU profile over d (its /debug/pprof, on by default,
// with the benchmark's admin credentials), saves it and attributes it.
func (b *bench) takeProfile(ctx context.Context, name string, d time.Duration) (*apiserverProfile, error) {
	hc, err := rest.HTTPClientFor(b.restCfg)
	if err != nil {
		return nil, fmt.Errorf("failed to build an HTTP client: %w", err)
	}
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", strings.TrimSuffix(b.restCfg.Host, "/"), int(d.Seconds()))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("failed to take kube-apiserver's CPU profile: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("failed to take kube-apiserver's CPU profile: %s %v", resp.Status, err)
	}
	path := filepath.Join(b.cfg.resultsDir, time.Now().UTC().Format("20060102T150405Z")+"-"+name+"-apiserver.pprof")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, fmt.Errorf("failed to save the profile: %w", err)
	}
	p := &apiserverProfile{Path: path, Seconds: d.Seconds()}
	if p.CPU, p.ByCategory, err = attribute(data); err != nil {
		return nil, err
	}
	return p, nil
}

// categoriesDesc returns the categories of p, largest first.
func (p *apiserverProfile) categoriesDesc() []string {
	names := make([]string, 0, len(p.ByCategory))
	for k := range p.ByCategory {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(p.ByCategory[b], p.ByCategory[a]), strings.Compare(a, b))
	})
	return names
}

// printAttribution prints the attribution of each saved profile: CPU seconds by category.
func printAttribution(paths []string) error {
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		total, by, err := attribute(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		p := &apiserverProfile{CPU: total, ByCategory: by}
		fmt.Printf("%s: %.2f s\n", path, total)
		for _, k := range p.categoriesDesc() {
			fmt.Printf("  %6.2f  %s\n", by[k], k)
		}
	}
	return nil
}
