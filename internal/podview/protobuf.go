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

package podview

// The API server's protobuf encoding of Pods, decoded field by field. Why not a library: the
// generated decoders of k8s.io/api decode every field into a corev1.Pod, which is what this package
// exists to avoid; protowire (the protobuf module's wire-format reader) does the parsing, and only
// the mapping of field numbers below is ours. The field numbers are those of
// k8s.io/api/core/v1/generated.proto and k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto,
// which Kubernetes never renumbers (protobuf compatibility).

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reset clears p; the protobuf serializer calls it before Unmarshal.
func (p *Pod) Reset() { *p = Pod{} }

// Unmarshal decodes a core/v1 Pod in protobuf wire format into p: of the metadata what
// unmarshalObjectMeta reads, of the status the phase, the pod IP, each condition's type,
// status, reason and message and the container and init container statuses
// (ContainerStatus.unmarshal). The spec and every other field are skipped without being decoded. It returns an error
// when data is not a well-formed protobuf message or a field has an unexpected wire type.
func (p *Pod) Unmarshal(data []byte) error {
	return fields(data, func(num protowire.Number, typ protowire.Type, b []byte, _ uint64) error {
		switch num {
		case 1: // metadata
			return message(typ, "Pod.metadata", b, func(b []byte) error { return unmarshalObjectMeta(&p.ObjectMeta, b) })
		case 3: // status
			return message(typ, "Pod.status", b, p.Status.unmarshal)
		}
		return nil
	})
}

// unmarshal decodes a core/v1 PodStatus: phase (1), conditions (2), podIP (6), containerStatuses
// (8), initContainerStatuses (10).
func (s *PodStatus) unmarshal(data []byte) error {
	return fields(data, func(num protowire.Number, typ protowire.Type, b []byte, _ uint64) error {
		switch num {
		case 1:
			return str(typ, "PodStatus.phase", b, (*string)(&s.Phase))
		case 2:
			var c PodCondition
			if err := message(typ, "PodStatus.conditions", b, c.unmarshal); err != nil {
				return err
			}
			s.Conditions = append(s.Conditions, c)
		case 6:
			return str(typ, "PodStatus.podIP", b, &s.PodIP)
		case 8:
			var c ContainerStatus
			if err := message(typ, "PodStatus.containerStatuses", b, c.unmarshal); err != nil {
				return err
			}
			s.ContainerStatuses = append(s.ContainerStatuses, c)
		case 10:
			var c ContainerStatus
			if err := message(typ, "PodStatus.initContainerStatuses", b, c.unmarshal); err != nil {
				return err
			}
			s.InitContainerStatuses = append(s.InitContainerStatuses, c)
		}
		return nil
	})
}

// unmarshal decodes a core/v1 ContainerStatus: name (1), state (2), lastState (3), ready (4),
// restartCount (5), image (6).
func (c *ContainerStatus) unmarshal(data []byte) error {
	return fields(data, func(num protowire.Number, typ protowire.Type, b []byte, v uint64) error {
		switch num {
		case 1:
			return str(typ, "ContainerStatus.name", b, &c.Name)
		case 2:
			return message(typ, "ContainerStatus.state", b, c.State.unmarshal)
		case 3:
			return message(typ, "ContainerStatus.lastState", b, c.LastTerminationState.unmarshal)
		case 4:
			if typ != protowire.VarintType {
				return wireTypeError("ContainerStatus.ready", typ)
			}
			c.Ready = v != 0
		case 5:
			if typ != protowire.VarintType {
				return wireTypeError("ContainerStatus.restartCount", typ)
			}
			c.RestartCount = int32(v)
		case 6:
			return str(typ, "ContainerStatus.image", b, &c.Image)
		}
		return nil
	})
}

// unmarshal decodes a core/v1 ContainerState: waiting (1: reason 1, message 2) and terminated (3:
// exitCode 1, reason 3, message 4); running (2) is skipped.
func (s *ContainerState) unmarshal(data []byte) error {
	return fields(data, func(num protowire.Number, typ protowire.Type, b []byte, _ uint64) error {
		switch num {
		case 1:
			s.Waiting = &ContainerStateWaiting{}
			return message(typ, "ContainerState.waiting", b, func(b []byte) error {
				return fields(b, func(num protowire.Number, typ protowire.Type, b []byte, _ uint64) error {
					switch num {
					case 1:
						return str(typ, "ContainerStateWaiting.reason", b, &s.Waiting.Reason)
					case 2:
						return str(typ, "ContainerStateWaiting.message", b, &s.Waiting.Message)
					}
					return nil
				})
			})
		case 3:
			s.Terminated = &ContainerStateTerminated{}
			return message(typ, "ContainerState.terminated", b, func(b []byte) error {
				return fields(b, func(num protowire.Number, typ protowire.Type, b []byte, v uint64) error {
					switch num {
					case 1:
						if typ != protowire.VarintType {
							return wireTypeError("ContainerStateTerminated.exitCode", typ)
						}
						s.Terminated.ExitCode = int32(v)
					case 3:
						return str(typ, "ContainerStateTerminated.reason", b, &s.Terminated.Reason)
					case 4:
						return str(typ, "ContainerStateTerminated.message", b, &s.Terminated.Message)
					}
					return nil
				})
			})
		}
		return nil
	})
}

// unmarshal decodes a core/v1 PodCondition: type (1), status (2), reason (5), message (6).
func (c *PodCondition) unmarshal(data []byte) error {
	return fields(data, func(num protowire.Number, typ protowire.Type, b []byte, _ uint64) error {
		switch num {
		case 1:
			return str(typ, "PodCondition.type", b, (*string)(&c.Type))
		case 2:
			return str(typ, "PodCondition.status", b, (*string)(&c.Status))
		case 5:
			return str(typ, "PodCondition.reason", b, &c.Reason)
		case 6:
			return str(typ, "PodCondition.message", b, &c.Message)
		}
		return nil
	})
}

// Reset clears l; the protobuf serializer calls it before Unmarshal.
func (l *PodList) Reset() { *l = PodList{} }

// Unmarshal decodes a core/v1 PodList in protobuf wire format into l: the list metadata and each
// item as Pod.Unmarshal does. It returns an error when data is not a well-formed protobuf message.
func (l *PodList) Unmarshal(data []byte) error {
	return fields(data, func(num protowire.Number, typ protowire.Type, b []byte, _ uint64) error {
		switch num {
		case 1:
			return message(typ, "PodList.metadata", b, l.ListMeta.Unmarshal)
		case 2:
			l.Items = append(l.Items, Pod{})
			return message(typ, "PodList.items", b, l.Items[len(l.Items)-1].Unmarshal)
		}
		return nil
	})
}

// unmarshalObjectMeta decodes a meta/v1 ObjectMeta into m: name (1), generateName (2), namespace
// (3), uid (5), resourceVersion (6), generation (7), creationTimestamp (8), deletionTimestamp (9),
// labels (11) and annotations (12; a watch bookmark carries the end of the initial events in one).
// Skipped: selfLink, deletionGracePeriodSeconds, owner references, finalizers and managed fields,
// the largest part of most objects' metadata.
func unmarshalObjectMeta(m *metav1.ObjectMeta, data []byte) error {
	return fields(data, func(num protowire.Number, typ protowire.Type, b []byte, v uint64) error {
		switch num {
		case 1:
			return str(typ, "ObjectMeta.name", b, &m.Name)
		case 2:
			return str(typ, "ObjectMeta.generateName", b, &m.GenerateName)
		case 3:
			return str(typ, "ObjectMeta.namespace", b, &m.Namespace)
		case 5:
			return str(typ, "ObjectMeta.uid", b, (*string)(&m.UID))
		case 6:
			return str(typ, "ObjectMeta.resourceVersion", b, &m.ResourceVersion)
		case 7:
			if typ != protowire.VarintType {
				return wireTypeError("ObjectMeta.generation", typ)
			}
			m.Generation = int64(v)
		case 8:
			return message(typ, "ObjectMeta.creationTimestamp", b, m.CreationTimestamp.Unmarshal)
		case 9:
			m.DeletionTimestamp = &metav1.Time{}
			return message(typ, "ObjectMeta.deletionTimestamp", b, m.DeletionTimestamp.Unmarshal)
		case 11:
			return mapEntry(typ, "ObjectMeta.labels", b, &m.Labels)
		case 12:
			return mapEntry(typ, "ObjectMeta.annotations", b, &m.Annotations)
		}
		return nil
	})
}

// fields calls fn for each field of the protobuf message in data, in order, with its number, its
// wire type and, for a length-delimited field, its bytes, for a varint its value; fields of the
// other wire types are passed with neither. It returns the first error of fn, or a parse error when
// data is not well-formed.
func fields(data []byte, fn func(num protowire.Number, typ protowire.Type, b []byte, v uint64) error) error {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return fmt.Errorf("failed to read a field tag: %w", protowire.ParseError(n))
		}
		data = data[n:]
		var b []byte
		var v uint64
		switch typ {
		case protowire.BytesType:
			b, n = protowire.ConsumeBytes(data)
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(data)
		default:
			n = protowire.ConsumeFieldValue(num, typ, data)
		}
		if n < 0 {
			return fmt.Errorf("failed to read field %d: %w", num, protowire.ParseError(n))
		}
		data = data[n:]
		if err := fn(num, typ, b, v); err != nil {
			return err
		}
	}
	return nil
}

// str sets *out to the string field b, named field in errors.
func str(typ protowire.Type, field string, b []byte, out *string) error {
	if typ != protowire.BytesType {
		return wireTypeError(field, typ)
	}
	*out = string(b)
	return nil
}

// message decodes the embedded message b with unmarshal, named field in errors.
func message(typ protowire.Type, field string, b []byte, unmarshal func([]byte) error) error {
	if typ != protowire.BytesType {
		return wireTypeError(field, typ)
	}
	if err := unmarshal(b); err != nil {
		return fmt.Errorf("failed to decode %s: %w", field, err)
	}
	return nil
}

// mapEntry adds the map<string, string> entry b (key 1, value 2) to *m, creating the map.
func mapEntry(typ protowire.Type, field string, b []byte, m *map[string]string) error {
	var key, value string
	err := message(typ, field, b, func(b []byte) error {
		return fields(b, func(num protowire.Number, typ protowire.Type, b []byte, _ uint64) error {
			switch num {
			case 1:
				return str(typ, field+" key", b, &key)
			case 2:
				return str(typ, field+" value", b, &value)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[key] = value
	return nil
}

// wireTypeError says that field came with wire type typ where its schema has another.
func wireTypeError(field string, typ protowire.Type) error {
	return fmt.Errorf("field %s has the unexpected wire type %d", field, typ)
}
