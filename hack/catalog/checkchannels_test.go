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
	"os/exec"
	"strings"
	"testing"
)

// make bundle and make catalog refuse an empty or unknown default channel, or an unknown channel,
// before anything is generated (hack/release/check-channels.sh), with a message naming the setting.
// Sources: https://github.com/medik8s/self-node-remediation/issues/311 (an empty DEFAULT_CHANNEL
// slipped past the build guard and failed later in opm),
// https://github.com/operator-framework/operator-registry/issues/928 (a channel without bundles
// rejected only by opm validate).
func TestCheckChannelsScript(t *testing.T) {
	tests := map[string]struct {
		channels, defaultChannel string
		wantErr                  string // empty: accepted
	}{
		"all channels, stable default":   {channels: "candidate,fast,stable", defaultChannel: "stable"},
		"one channel, its default":       {channels: "candidate", defaultChannel: "candidate"},
		"empty default channel":          {channels: "candidate,fast,stable", wantErr: "DEFAULT_CHANNEL is empty"},
		"default not among the channels": {channels: "candidate,fast", defaultChannel: "stable", wantErr: "DEFAULT_CHANNEL=stable is not one of CHANNELS=candidate,fast"},
		"unknown channel":                {channels: "alpha", defaultChannel: "alpha", wantErr: `CHANNELS contains "alpha"`},
		"no channels":                    {defaultChannel: "stable", wantErr: "CHANNELS is empty"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command("bash", "../release/check-channels.sh", tc.channels, tc.defaultChannel).CombinedOutput()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v\n%s", err, out)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want an error containing %q", tc.wantErr)
			}
			if !strings.Contains(string(out), tc.wantErr) {
				t.Errorf("output %q lacks %q", out, tc.wantErr)
			}
		})
	}
}
