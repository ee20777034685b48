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
	"encoding/json"
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	cachev1alpha1 "github.com/example/memcached-operator/api/v1alpha1"
)

// Warm restarts (spec.warmRestart, docs/warm-restarts.md). memcached keeps its items in a memory
// file (-e) on a memory-backed emptyDir, which outlives a restart of the container in the same
// pod. The memcached container runs the launcher (cmd/memcached-launcher, internal/warmstart) as
// its PID 1: an init container copies it from the operator's image into a second small emptyDir,
// because the memcached image has nothing but memcached. The launcher starts memcached with -e,
// turns the kubelet's SIGTERM into SIGUSR1 (memcached saves its items and exits; SIGTERM alone
// does not save), starts cold after any stop that was not a complete save, and sends SIGHUP
// when the mounted auth file changes (memcached re-reads it), so a password rotation restarts
// nothing. The launcher is memcached's parent in its own container: it signals memcached with no
// privilege, no capability and no shared process namespace.
const (
	// warmVolume holds the memory file; warmDir is where the memcached container mounts it.
	warmVolume = "memcached-warm"
	warmDir    = "/var/lib/memcached"
	// MemoryFile is memcached's -e file.
	MemoryFile = warmDir + "/memory_file"
	// launcherVolume holds the launcher binary the init container copies; launcherDir is where
	// both containers mount it.
	launcherVolume = "memcached-launcher"
	launcherDir    = "/opt/memcached-launcher"
	// LauncherBinary is the launcher in the memcached container.
	LauncherBinary = launcherDir + "/memcached-launcher"
	// LauncherInitContainerName copies the launcher from the operator's image.
	LauncherInitContainerName = "install-launcher"
	// launcherImageCommand is the launcher in the operator's image (Dockerfile).
	launcherImageCommand = "/memcached-launcher"
	// launcherVolumeLimit bounds the launcher's volume: one static binary (about 4 MiB).
	launcherVolumeLimit = "32Mi"
	// MemcachedArgsAnnotation on the pod template holds memcached's arguments (a JSON array) when
	// warm restarts are on: a downwardAPI volume (argsVolume) projects it into the container as
	// argsFile, which the launcher reads at each start and watches. A pod's annotations may
	// change while it runs and its arguments may not, so a change of memcached's settings reaches
	// a running pod: the launcher saves, exits, and the container restarts with the new
	// arguments and its items (docs/warm-restarts.md).
	MemcachedArgsAnnotation = "cache.example.com/memcached-args"
	// argsVolume projects MemcachedArgsAnnotation; argsDir is where memcached's container mounts
	// it, argsFile the file.
	argsVolume = "memcached-args"
	argsDir    = "/etc/memcached/launcher"
	argsFile   = argsDir + "/args"
	// warmMetaMiB is what the volume holds beyond the memory file (exactly maxMemoryMB MiB): the
	// save's metadata (memory_file.meta, under 1 KiB) and the launcher's marker.
	warmMetaMiB = 1
)

// warmRestartEnabled reports whether mc's pods keep their items across restarts: spec.warmRestart
// with spec.serverIdentity Stable (cachev1alpha1.WarmRestarts), when the operator knows its own
// image (opts.CertReloaderImage), which carries the launcher.
func warmRestartEnabled(mc *cachev1alpha1.Memcached, opts Options) bool {
	return mc.WarmRestarts() && opts.CertReloaderImage != ""
}

// warmVolumes returns the two emptyDirs of warm restarts, nil when off: the memory file's, in
// memory (medium Memory) and sized to it (maxMemoryMB MiB plus warmMetaMiB), and the launcher's.
// Both count toward the pod's memory (the file's pages are memcached's item memory, charged
// once; docs/warm-restarts.md has the figures measured on a node).
func warmVolumes(mc *cachev1alpha1.Memcached, opts Options) []corev1.Volume {
	if !warmRestartEnabled(mc, opts) {
		return nil
	}
	size := resource.NewQuantity((int64(mc.Spec.Memcached.MaxMemoryMB)+warmMetaMiB)*1024*1024, resource.BinarySI)
	limit := resource.MustParse(launcherVolumeLimit)
	return []corev1.Volume{
		{Name: warmVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: size}}},
		{Name: launcherVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: &limit}}},
		{Name: argsVolume, VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
			Items: []corev1.DownwardAPIVolumeFile{{Path: path.Base(argsFile), FieldRef: &corev1.ObjectFieldSelector{
				APIVersion: "v1", FieldPath: "metadata.annotations['" + MemcachedArgsAnnotation + "']"}}},
			DefaultMode: ptr.To[int32](0o444),
		}}},
	}
}

// warmMounts returns the memcached container's mounts of warmVolumes: the memory file's
// read-write, the launcher's read-only.
func warmMounts(mc *cachev1alpha1.Memcached, opts Options) []corev1.VolumeMount {
	if !warmRestartEnabled(mc, opts) {
		return nil
	}
	return []corev1.VolumeMount{{Name: warmVolume, MountPath: warmDir}, {Name: launcherVolume, MountPath: launcherDir, ReadOnly: true},
		{Name: argsVolume, MountPath: argsDir, ReadOnly: true}}
}

// warmInitContainers returns the init container that copies the launcher into its volume, nil
// when warm restarts are off. It runs the operator's image under the restricted security
// context, requests 5m CPU and 16Mi, limited to 32Mi (a copy of one file).
func warmInitContainers(mc *cachev1alpha1.Memcached, opts Options) []corev1.Container {
	if !warmRestartEnabled(mc, opts) {
		return nil
	}
	return []corev1.Container{{
		Name:         LauncherInitContainerName,
		Image:        opts.CertReloaderImage,
		Command:      []string{launcherImageCommand, "install", launcherDir},
		VolumeMounts: []corev1.VolumeMount{{Name: launcherVolume, MountPath: launcherDir}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")},
		},
		SecurityContext: restrictedContainerSecurityContext(),
	}}
}

// memcachedCommand returns the memcached container's command and args: memcached with
// MemcachedArgs, or with warm restarts the launcher running it over MemoryFile (the launcher
// adds -e) with the arguments of argsFile (MemcachedArgsAnnotation, which warmArgsAnnotation
// sets), reloading the auth file (spec.auth) when it changes.
func memcachedCommand(mc *cachev1alpha1.Memcached, opts Options) ([]string, []string) {
	if !warmRestartEnabled(mc, opts) {
		return []string{"memcached"}, MemcachedArgs(mc, opts)
	}
	run := []string{"run", "--memory-file=" + MemoryFile, "--args-file=" + argsFile, "--reload-interval=" + CertReloaderInterval}
	if mc.Spec.Auth != nil {
		run = append(run, "--reload-file="+path.Join(authDir, authFile))
	}
	return []string{LauncherBinary}, append(run, "--memcached=memcached")
}

// warmArgsAnnotation returns the pod template annotations with warm restarts on: memcached's
// arguments as a JSON array (MemcachedArgsAnnotation); nil when off.
func warmArgsAnnotation(mc *cachev1alpha1.Memcached, opts Options) map[string]string {
	if !warmRestartEnabled(mc, opts) {
		return nil
	}
	b, err := json.Marshal(MemcachedArgs(mc, opts))
	if err != nil {
		panic(fmt.Sprintf("memcached's arguments do not encode as JSON: %v", err)) // strings always do
	}
	return map[string]string{MemcachedArgsAnnotation: string(b)}
}
