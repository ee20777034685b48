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

package status

import (
	"os"
	"testing"

	lua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/example/memcached-operator/controllers/internal/fixture"
)

// healthKey is the argocd-cm key of the Memcached health check (resource.customizations.health.<group>_<kind>).
const healthKey = "resource.customizations.health.cache.example.com_Memcached"

// TestArgoCDHealthCheck runs the health check of config/argocd/argocd-cm.yaml as Argo CD runs one
// (gopher-lua, the object as the global obj, the returned table's status and message) on the
// statuses of contractCases.
func TestArgoCDHealthCheck(t *testing.T) {
	data, err := os.ReadFile("../../config/argocd/argocd-cm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := yaml.UnmarshalStrict(data, cm); err != nil {
		t.Fatal(err)
	}
	script := cm.Data[healthKey]
	if script == "" {
		t.Fatalf("config/argocd/argocd-cm.yaml has no %s", healthKey)
	}
	for name, tc := range contractCases() {
		t.Run(name, func(t *testing.T) {
			_, u := tc.object(t)
			status, message := runHealthCheck(t, script, u.Object)
			fixture.Expect(t, "health ("+message+")", status, tc.argo)
			if message == "" {
				t.Error("no message")
			}
		})
	}
}

// runHealthCheck runs script with obj as its global obj and returns the status and message of the
// table it returns.
func runHealthCheck(t *testing.T, script string, obj map[string]any) (status, message string) {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("obj", toLua(L, obj))
	if err := L.DoString(script); err != nil {
		t.Fatalf("the health check failed: %v", err)
	}
	hs, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("the health check returned %s, want a table", L.Get(-1).Type())
	}
	return lua.LVAsString(hs.RawGetString("status")), lua.LVAsString(hs.RawGetString("message"))
}

// toLua converts v, an unstructured object's value, to a Lua value as Argo CD does for a
// resource (maps to tables, slices to 1-based arrays, numbers to numbers). gopher-lua has no such
// conversion of its own, and Argo CD's (util/lua) comes only with the whole Argo CD module and its
// dependencies.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		tbl := L.NewTable()
		for k, e := range v {
			tbl.RawSetString(k, toLua(L, e))
		}
		return tbl
	case []any:
		tbl := L.NewTable()
		for _, e := range v {
			tbl.Append(toLua(L, e))
		}
		return tbl
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case nil:
		return lua.LNil
	default:
		panic("unexpected value in an unstructured object")
	}
}
