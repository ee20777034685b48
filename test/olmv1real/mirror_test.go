//go:build real

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

package olmv1real

import (
	"context"
	"testing"
	"time"

	"github.com/distribution/reference"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/memcached-operator/test/utils"
)

// mirrorCatalog is the ClusterCatalog of the committed catalog under its public name.
const mirrorCatalog = "memcached-mirror"

// TestMirroredCatalog is the disconnected install with OLM v1, whose catalogd and operator-controller
// pull catalog and bundle images themselves: their registries.conf serves registry.example.com
// from the local registry (hack/olm/olmv1-up.sh), as the node's containerd does
// (hack/lib/node.sh), and hack/olm/mirror-images.sh filled it with what one release of the committed
// catalog names. A ClusterCatalog on the public catalog name resolves to the digest the mirror
// holds; the sample ClusterExtension, pinned to that release and that catalog, installs it from the
// bundle the catalog pins by digest; the operator and memcached pods run the public names the CSV
// names, resolved to the mirror's digests.
func TestMirroredCatalog(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, err := utils.MirrorEnv()
	if err != nil {
		t.Fatal(err)
	}
	deleteExtension(t)
	suite.kubectl.Must(t, "", "delete", "clustercatalog", mirrorCatalog, "--ignore-not-found", "--wait=true")
	t.Cleanup(func() {
		deleteExtension(t)
		suite.kubectl.Must(t, "", "delete", "clustercatalog", mirrorCatalog, "--ignore-not-found", "--wait=true")
	})

	start := time.Now()
	cc := sample(t, "clustercatalog.yaml")[0]
	cc.SetName(mirrorCatalog)
	g.Expect(unstructured.SetNestedField(cc.Object, env["MIRROR_CATALOG_IMAGE"], "spec", "source", "image", "ref")).To(Succeed())
	apply(t, cc)
	suite.kubectl.Must(t, "", "wait", "--for=condition=Serving", "clustercatalog/"+mirrorCatalog, "--timeout=3m")
	u, err := getObj(ccGVK, mirrorCatalog)
	g.Expect(err).NotTo(HaveOccurred())
	resolved, _, _ := unstructured.NestedString(u.Object, "status", "resolvedSource", "image", "ref")
	public, err := reference.ParseNormalizedNamed(env["MIRROR_CATALOG_IMAGE"])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resolved).To(Equal(public.Name()+"@"+env["MIRROR_CATALOG_DIGEST"]), "catalogd resolved the public name to the mirror's digest")
	suite.phases.Record(t, "ClusterCatalog Serving "+env["MIRROR_CATALOG_IMAGE"]+" from the mirror", start)

	start = time.Now()
	apply(t, sample(t, "installer.yaml")...)
	ce := sample(t, "clusterextension.yaml")[0]
	g.Expect(unstructured.SetNestedField(ce.Object, env["MIRROR_VERSION"], "spec", "source", "catalog", "version")).To(Succeed())
	g.Expect(unstructured.SetNestedStringMap(ce.Object, map[string]string{"olm.operatorframework.io/metadata.name": mirrorCatalog},
		"spec", "source", "catalog", "selector", "matchLabels")).To(Succeed())
	apply(t, ce)
	waitInstalled(t, env["MIRROR_VERSION"])
	op := operatorPod(t, env["MIRROR_OPERATOR_IMAGE"])
	g.Expect(utils.RanAs(&op, env["MIRROR_OPERATOR_IMAGE"], env["MIRROR_OPERATOR_DIGEST"])).To(Succeed())
	suite.phases.Record(t, "ClusterExtension Installed "+env["MIRROR_VERSION"]+" from the mirrored catalog, operator on "+env["MIRROR_OPERATOR_IMAGE"], start)

	start = time.Now()
	ns := utils.NewNamespace(t, suite.k8s, "olmv1-mirror", map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}, 2*time.Minute)
	key := client.ObjectKey{Namespace: ns, Name: "cache"}
	g.Expect(suite.k8s.Create(ctx, utils.NewMemcached(ns, key.Name, 1))).To(Succeed())
	_, pods := utils.WaitAvailable(t, suite.k8s, key, 1, 3*time.Minute)
	g.Expect(utils.RanAs(&pods[0], env["MIRROR_MEMCACHED_IMAGE"], env["MIRROR_MEMCACHED_DIGEST"])).To(Succeed())
	suite.phases.Record(t, "Memcached Available on "+env["MIRROR_MEMCACHED_IMAGE"], start)
}
