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

// Package kubectlplugin is `kubectl memcached`: what a user in trouble asks of one Memcached.
// status prints its servers, conditions and last events; report writes a diagnostics bundle (the
// Memcached, the objects the operator owns for it, its pods, the events about them and the
// operator's log) that never holds a Secret's data: the operator's objects name Secrets and carry a
// keyed hash of their data, and the bundle reads no Secret.
package kubectlplugin

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/resources"
)

// Clients are what the plugin reads with: a controller-runtime client for objects and a clientset
// for pod logs (which the former cannot read).
type Clients struct {
	Client    client.Client
	Clientset kubernetes.Interface
}

// instance is one Memcached and what is read about it.
type instance struct {
	mc     *cachev1alpha1.Memcached
	pods   []corev1.Pod
	events []corev1.Event
}

// read gets the Memcached ns/name, its pods, and the events about it, its workloads, Service,
// ReplicaSets and pods, oldest first.
func read(ctx context.Context, c Clients, ns, name string) (*instance, error) {
	mc := &cachev1alpha1.Memcached{}
	if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, mc); err != nil {
		return nil, fmt.Errorf("failed to get Memcached %s/%s: %w", ns, name, err)
	}
	in := &instance{mc: mc}
	pods := &corev1.PodList{}
	if err := c.Client.List(ctx, pods, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: resources.PodSelector(mc)}); err != nil {
		return nil, fmt.Errorf("failed to list the pods of Memcached %s/%s: %w", ns, name, err)
	}
	in.pods = pods.Items
	slices.SortFunc(in.pods, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	events := &corev1.EventList{}
	if err := c.Client.List(ctx, events, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("failed to list the events of namespace %s: %w", ns, err)
	}
	about := map[string]bool{"Memcached/" + name: true, "Deployment/" + resources.DeploymentName(mc): true,
		"StatefulSet/" + resources.DeploymentName(mc): true, "Service/" + resources.ServiceName(mc): true}
	for _, p := range in.pods {
		about["Pod/"+p.Name] = true
	}
	// The Deployment's ReplicaSets carry its pod template's labels, so the pod selector finds them.
	replicaSets := &appsv1.ReplicaSetList{}
	if err := c.Client.List(ctx, replicaSets, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: resources.PodSelector(mc)}); err != nil {
		return nil, fmt.Errorf("failed to list the ReplicaSets of Memcached %s/%s: %w", ns, name, err)
	}
	for _, rs := range replicaSets.Items {
		about["ReplicaSet/"+rs.Name] = true
	}
	for _, e := range events.Items {
		if about[e.InvolvedObject.Kind+"/"+e.InvolvedObject.Name] {
			in.events = append(in.events, e)
		}
	}
	slices.SortFunc(in.events, func(a, b corev1.Event) int { return eventTime(a).Compare(eventTime(b)) })
	return in, nil
}

// eventTime is when e last happened.
func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	default:
		return e.CreationTimestamp.Time
	}
}

// maxStatusEvents is how many of the newest events status prints.
const maxStatusEvents = 10

// Status prints the Memcached ns/name for a person: a summary line, its servers (pod, server
// address, node, readiness, restarts, image), its conditions and its last events.
func Status(ctx context.Context, c Clients, ns, name string, w io.Writer, now time.Time) error {
	in, err := read(ctx, c, ns, name)
	if err != nil {
		return err
	}
	writeStatus(in, w, now)
	return nil
}

// writeStatus is Status's output for in at now.
func writeStatus(in *instance, w io.Writer, now time.Time) {
	mc := in.mc
	ready := meta.FindStatusCondition(mc.Status.Conditions, cachev1alpha1.ConditionReady)
	verdict := "no Ready condition yet (is the operator running, and does it watch this namespace?)"
	if ready != nil {
		verdict = fmt.Sprintf("Ready=%s (%s): %s", ready.Status, ready.Reason, ready.Message)
	}
	if mc.Paused() {
		verdict += "; paused (" + cachev1alpha1.PauseAnnotation + "): not reconciled"
	}
	fmt.Fprintf(w, "Memcached %s/%s: size %d, %d ready; memcached %s; generation %d, observed %d\n%s\n",
		mc.Namespace, mc.Name, mc.Spec.Size, mc.Status.ReadyReplicas, or(mc.Status.Version, "version unknown"), mc.Generation, mc.Status.ObservedGeneration, verdict)

	fmt.Fprintln(w, "\nServers:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  POD\tIP\tNODE\tREADY\tRESTARTS\tIMAGE\tAGE")
	for _, p := range in.pods {
		restarts, image := int32(0), ""
		for _, cs := range p.Status.ContainerStatuses {
			restarts += cs.RestartCount
			if cs.Name == resources.ContainerName {
				image = cs.Image
			}
		}
		if image == "" && len(p.Spec.Containers) > 0 {
			image = p.Spec.Containers[0].Image
		}
		state := "no"
		if podReady(&p) {
			state = "yes"
		}
		if p.DeletionTimestamp != nil {
			state = "terminating"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%s\t%s\n", p.Name, or(p.Status.PodIP, "-"), or(p.Spec.NodeName, "-"), state, restarts, image,
			duration.HumanDuration(now.Sub(p.CreationTimestamp.Time)))
	}
	_ = tw.Flush()
	if len(mc.Status.ServerList) > 0 {
		fmt.Fprintf(w, "Server list (status.serverList): %s\n", strings.Join(mc.Status.ServerList, ","))
	}

	fmt.Fprintln(w, "\nConditions:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TYPE\tSTATUS\tREASON\tSINCE\tMESSAGE")
	for _, c := range mc.Status.Conditions {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, duration.HumanDuration(now.Sub(c.LastTransitionTime.Time)), c.Message)
	}
	_ = tw.Flush()

	fmt.Fprintln(w, "\nEvents (newest last):")
	events := in.events[max(0, len(in.events)-maxStatusEvents):]
	if len(events) == 0 {
		fmt.Fprintln(w, "  none")
	}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, e := range events {
		fmt.Fprintf(tw, "  %s ago\t%s\t%s\t%s/%s\t%s\n", duration.HumanDuration(now.Sub(eventTime(e))), e.Type, e.Reason,
			e.InvolvedObject.Kind, e.InvolvedObject.Name, strings.TrimSpace(e.Message))
	}
	_ = tw.Flush()
}

// podReady reports whether p's Ready condition is True.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// owned are the kinds the operator may create for an instance, each named like it; Secrets are
// never among them.
var owned = []struct {
	kind string
	obj  func() client.Object
}{
	{"Deployment", func() client.Object { return &appsv1.Deployment{} }},
	{"StatefulSet", func() client.Object { return &appsv1.StatefulSet{} }},
	{"Service", func() client.Object { return &corev1.Service{} }},
	{"PodDisruptionBudget", func() client.Object { return &policyv1.PodDisruptionBudget{} }},
	{"NetworkPolicy", func() client.Object { return &networkingv1.NetworkPolicy{} }},
	{"ServiceMonitor", func() client.Object { return monitoring("ServiceMonitor") }},
	{"PrometheusRule", func() client.Object { return monitoring("PrometheusRule") }},
}

// monitoring is an empty unstructured object of a kind of monitoring.coreos.com/v1, which the
// plugin's scheme need not know.
func monitoring(kind string) client.Object {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: kind})
	return u
}

// operatorSelector selects the operator's pods (the Deployment of config/manager and of the CSV).
var operatorSelector = client.MatchingLabels{"control-plane": "controller-manager", "app.kubernetes.io/name": "memcached-operator"}

// maxLogLines is how much of each operator pod's log a report holds.
const maxLogLines = 2000

// Report writes to w a gzipped tar of what one needs to diagnose the Memcached ns/name:
// status.txt (Status's output), memcached.yaml, one file per object the operator owns for it
// (objects/<Kind>.yaml; kinds the cluster does not serve or objects that do not exist are
// listed in missing.txt), pods.yaml, events.yaml and the operator pods' logs
// (logs/<namespace>-<pod>.log, the last maxLogLines lines, from every namespace the caller may
// list pods in). It reads no Secret.
func Report(ctx context.Context, c Clients, ns, name string, w io.Writer, now time.Time) error {
	in, err := read(ctx, c, ns, name)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	add := func(file string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: file, Mode: 0o644, Size: int64(len(data)), ModTime: now}); err != nil {
			return fmt.Errorf("failed to write %s: %w", file, err)
		}
		_, err := tw.Write(data)
		return err
	}
	addYAML := func(file string, obj any) error {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return fmt.Errorf("failed to encode %s: %w", file, err)
		}
		return add(file, b)
	}
	var status strings.Builder
	writeStatus(in, &status, now)
	var missing []string
	errs := []error{add("status.txt", []byte(status.String())), addYAML("memcached.yaml", in.mc)}
	for _, o := range owned {
		obj := o.obj()
		err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: resources.DeploymentName(in.mc)}, obj)
		switch {
		case err == nil:
			obj.SetManagedFields(nil)
			errs = append(errs, addYAML("objects/"+o.kind+".yaml", obj))
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
			missing = append(missing, fmt.Sprintf("%s %s: %v", o.kind, name, err))
		default:
			missing = append(missing, fmt.Sprintf("%s %s: failed to get: %v", o.kind, name, err))
		}
	}
	errs = append(errs, addYAML("pods.yaml", in.pods), addYAML("events.yaml", in.events))
	operators := &corev1.PodList{}
	if err := c.Client.List(ctx, operators, operatorSelector); err != nil {
		missing = append(missing, fmt.Sprintf("operator pods: failed to list: %v", err))
	} else if len(operators.Items) == 0 {
		missing = append(missing, "operator pods: none labelled control-plane=controller-manager, app.kubernetes.io/name=memcached-operator (run outside the cluster?)")
	}
	for _, p := range operators.Items {
		logs, err := c.Clientset.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: "manager", TailLines: ptr.To[int64](maxLogLines)}).DoRaw(ctx)
		if err != nil {
			missing = append(missing, fmt.Sprintf("log of operator pod %s/%s: %v", p.Namespace, p.Name, err))
			continue
		}
		errs = append(errs, add("logs/"+p.Namespace+"-"+p.Name+".log", logs))
	}
	errs = append(errs, add("missing.txt", []byte(strings.Join(missing, "\n")+"\n")), tw.Close(), zw.Close())
	return errors.Join(errs...)
}
