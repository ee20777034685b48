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

package resources

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
	"github.com/example/memcached-operator/controllers/apply"
)

// DesiredObject is one entry of DesiredState: an object of one kind that an instance should own,
// or the absence of one (the spec turns it off). It is built by a pure function; apply, the only
// part that talks to the API server, is apply.Object of its apply.Owned[T].
type DesiredObject struct {
	// Kind names the kind in logs, events and errors ("Deployment").
	Kind string
	// Object is the desired object; for an absent one, an empty object of the kind carrying the
	// name and namespace to delete.
	Object client.Object
	// Absent: the spec turns the object off, so the operator deletes its own one
	// (apply.DeleteIfOwned).
	Absent bool
	// DeleteReason ends the event of an absent object's deletion ("disabled in spec" when empty).
	DeleteReason string
	// OptionalAPI: the kind is served only where its CRD is installed (ServiceMonitor,
	// PrometheusRule); the entry is applied or deleted only while the cluster serves it
	// (the reconciler's monitoringKindWatch).
	OptionalAPI bool
	// Apply makes the cluster match Object (apply.Object); nil when absent.
	Apply func(ctx context.Context, c client.Client, reader client.Reader, scheme *runtime.Scheme, mc *cachev1alpha1.Memcached) (client.Object, apply.Result, error)
}

// want returns the entry of o when enabled, and otherwise the absence of an object of its kind
// named like o.Desired (o.Live, the empty object, carries the name to delete).
func want[T client.Object](enabled bool, o apply.Owned[T]) DesiredObject {
	if !enabled {
		o.Live.SetName(o.Desired.GetName())
		o.Live.SetNamespace(o.Desired.GetNamespace())
		return DesiredObject{Kind: o.Kind, Object: o.Live, Absent: true}
	}
	return DesiredObject{Kind: o.Kind, Object: o.Desired,
		Apply: func(ctx context.Context, c client.Client, reader client.Reader, scheme *runtime.Scheme, mc *cachev1alpha1.Memcached) (client.Object, apply.Result, error) {
			return apply.Object(ctx, c, reader, scheme, mc, o)
		}}
}

// optionalAPI marks d as a kind the cluster may not serve.
func optionalAPI(d DesiredObject) DesiredObject {
	d.OptionalAPI = true
	return d
}

// Read is what the reconciler read of the cluster that the desired state depends on, as plain
// values. The zero value: no workload exists and the pods use no Secret.
type Read struct {
	// Secrets are the hashes of the Secret data the pods use (SecretDataHash).
	Secrets SecretHashes
	// Handover is what exists of the two workloads (NewHandover).
	Handover Handover
	// Deployment and StatefulSet are the instance's workloads as read (nil: not found), whoever
	// controls them, the Deployment decoded from the cache's form: apply compares with them and
	// does not read them again (apply.Owned.LiveRead), and reports one it does not control.
	Deployment  *appsv1.Deployment
	StatefulSet *appsv1.StatefulSet
}

// DesiredState returns every object mc should own with opts, or the absence of each optional one
// the spec turns off, in the order they are applied: the workload (the Deployment, or with
// spec.serverIdentity Stable the StatefulSet; its pod template carrying the hash of the Secret data
// whose change must roll the pods, SecretHashes.rollout), during a change of spec.serverIdentity
// the other workload with the replicas HandoverReplicas leaves it (or its absence once the move is
// done), the headless Service, the PodDisruptionBudget, the NetworkPolicy, the ServiceMonitor and
// the PrometheusRule. It is pure: read is all it knows of the cluster, and it builds the pod
// template once for both workloads. Adding a kind the operator owns is adding its entry here (and
// its watch in SetupWithManager). The objects carry no owner reference; apply sets it when it
// creates them.
func DesiredState(mc *cachev1alpha1.Memcached, opts Options, read Read) []DesiredObject {
	newer, older, deleteOld := HandoverReplicas(mc.Spec.Size, read.Handover)
	dep := DesiredDeployment(mc, opts)
	SetSecretHash(&dep.Spec.Template, read.Secrets.rollout(mc, opts))
	// One target for both workloads: it builds the template of an operator without the reloader
	// at most once.
	target := templateTarget(mc, opts, read.Secrets)
	needsUpdate, update := deploymentUpdate(target)
	deployment := live(apply.Owned[*appsv1.Deployment]{
		Kind: "Deployment", Desired: dep, Live: &appsv1.Deployment{},
		NeedsUpdate: needsUpdate, Update: update,
	}, read.Deployment)
	sts := statefulSetWith(mc, *dep.Spec.Template.DeepCopy())
	stsNeedsUpdate, stsUpdate := statefulSetUpdate(target)
	statefulSet := live(apply.Owned[*appsv1.StatefulSet]{
		Kind: "StatefulSet", Desired: sts, Live: &appsv1.StatefulSet{},
		NeedsUpdate: stsNeedsUpdate, Update: stsUpdate,
	}, read.StatefulSet)
	// The workload asked for first, then the other one: during a move it is scaled down as the
	// new one's servers become available, then deleted; otherwise it does not exist (a delete of a
	// missing object reads the cache only).
	workloads := []DesiredObject{want(true, deployment), handedOver(read.Handover.OldExists && !deleteOld, statefulSet)}
	dep.Spec.Replicas, sts.Spec.Replicas = ptr.To(newer), ptr.To(older)
	if mc.StableIdentity() {
		workloads = []DesiredObject{want(true, statefulSet), handedOver(read.Handover.OldExists && !deleteOld, deployment)}
		dep.Spec.Replicas, sts.Spec.Replicas = ptr.To(older), ptr.To(newer)
	}
	return append(workloads,
		want(serviceEnabled(mc), apply.Owned[*corev1.Service]{
			Kind: "Service", Desired: DesiredService(mc), Live: &corev1.Service{},
			NeedsUpdate: ServiceNeedsUpdate, Update: UpdateService,
		}),
		want(pdbEnabled(mc), apply.Owned[*policyv1.PodDisruptionBudget]{
			Kind: "PodDisruptionBudget", Desired: DesiredPodDisruptionBudget(mc), Live: &policyv1.PodDisruptionBudget{},
			NeedsUpdate: PDBNeedsUpdate, Update: UpdatePodDisruptionBudget,
		}),
		// Built from the desired pod spec, before apply writes into dep: the policy admits the
		// ports of the desired pods.
		want(networkPolicyEnabled(mc), apply.Owned[*networkingv1.NetworkPolicy]{
			Kind: "NetworkPolicy", Desired: DesiredNetworkPolicy(mc, &dep.Spec.Template.Spec), Live: &networkingv1.NetworkPolicy{},
			NeedsUpdate: NetworkPolicyNeedsUpdate, Update: UpdateNetworkPolicy,
		}),
		optionalAPI(want(MonitoringEnabled(mc), apply.Owned[*monitoringv1.ServiceMonitor]{
			Kind: monitoringv1.ServiceMonitorsKind, Desired: desiredServiceMonitor(mc), Live: &monitoringv1.ServiceMonitor{},
			NeedsUpdate: serviceMonitorNeedsUpdate, Update: updateServiceMonitor,
		})),
		optionalAPI(want(MonitoringEnabled(mc), apply.Owned[*monitoringv1.PrometheusRule]{
			Kind: monitoringv1.PrometheusRuleKind, Desired: DesiredPrometheusRule(mc), Live: &monitoringv1.PrometheusRule{},
			NeedsUpdate: prometheusRuleNeedsUpdate, Update: updatePrometheusRule,
		})),
	)
}

// live returns o with read, when it was read (not nil), as its live object (apply.Owned.LiveRead).
func live[T interface {
	client.Object
	comparable
}](o apply.Owned[T], read T) apply.Owned[T] {
	var none T
	if read != none {
		o.Live, o.LiveRead = read, true
	}
	return o
}

// handedOver is want for the workload spec.serverIdentity does not ask for: applied while a move
// still needs it (enabled), absent otherwise, with the reason its deletion's event gives.
func handedOver[T client.Object](enabled bool, o apply.Owned[T]) DesiredObject {
	d := want(enabled, o)
	d.DeleteReason = "replaced by the " + map[bool]string{true: "StatefulSet", false: "Deployment"}[o.Kind == "Deployment"] + " of spec.serverIdentity"
	return d
}

// DesiredObjects returns the objects the operator creates for mc with opts, in the order it
// creates them: the entries of DesiredState that the spec turns on, of the kinds every cluster
// serves (the Deployment, then the headless Service, the PodDisruptionBudget and the
// NetworkPolicy when the spec enables them). They carry no owner reference (the reconciler adds
// it when it creates them).
// The scale benchmark's raw-client floor (test/bench) creates exactly these, so the floor does the
// same work the operator must do.
func DesiredObjects(mc *cachev1alpha1.Memcached, opts Options) []client.Object {
	var objs []client.Object
	for _, d := range DesiredState(mc, opts, Read{}) {
		if !d.Absent && !d.OptionalAPI {
			objs = append(objs, d.Object)
		}
	}
	return objs
}
