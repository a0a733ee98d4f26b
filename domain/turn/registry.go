package turn

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
)

// ErrUnknownEventType is returned when a stored event has a type (or schema
// version) this build does not know. Replay stops: skipping it would give a
// wrong state.
var ErrUnknownEventType = errors.New("unknown event type")

// Registry maps stable event type names and schema versions to payload
// constructors.
type Registry struct {
	byType map[string]registered
}

type registered struct {
	version int
	make    func() Payload
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byType: map[string]registered{}} }

// Register adds an event type; a duplicate name is refused.
func (r *Registry) Register(version int, make func() Payload) error {
	p := make()
	if reflect.ValueOf(p).Kind() != reflect.Pointer {
		return fmt.Errorf("register %s: constructor must return a pointer", p.EventType())
	}
	name := p.EventType()
	if name == "" || version < 1 {
		return fmt.Errorf("register %q v%d: a name and a version >= 1 are required", name, version)
	}
	if _, dup := r.byType[name]; dup {
		return fmt.Errorf("register %s: duplicate event type", name)
	}
	r.byType[name] = registered{version: version, make: make}
	return nil
}

// New returns an empty payload for a stored type and version.
func (r *Registry) New(typ string, version int) (Payload, error) {
	reg, ok := r.byType[typ]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEventType, typ)
	}
	if version != reg.version {
		return nil, fmt.Errorf("%w: %q schema version %d (this build knows v%d)", ErrUnknownEventType, typ, version, reg.version)
	}
	return reg.make(), nil
}

// Version returns the schema version of a registered type.
func (r *Registry) Version(typ string) (int, bool) {
	reg, ok := r.byType[typ]
	return reg.version, ok
}

// Types lists the registered type names, sorted.
func (r *Registry) Types() []string {
	out := make([]string, 0, len(r.byType))
	for t := range r.byType {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// EventRegistry is the registry of every turn event type: its stable
// name, its schema version and a constructor for its payload.
var EventRegistry = func() *Registry {
	r := NewRegistry()
	for _, c := range catalogue {
		if err := r.Register(c.version, c.make); err != nil {
			panic(err)
		}
	}
	return r
}()
