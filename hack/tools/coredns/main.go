// Command coredns runs CoreDNS at the version pinned in go.mod as the cluster DNS of the local
// cluster's real-node tier (hack/cluster/cluster-up.sh NODE=real): cluster.local served from the local
// kube-apiserver. Only the plugins that Corefile uses are linked (the standard set in core/plugin
// pulls in every cloud DNS SDK and triples the build); each registers itself in init, and
// core/dnsserver keeps the standard directive order.
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() { coremain.Run() }
