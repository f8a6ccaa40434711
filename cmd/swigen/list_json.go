package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/swigen/swigen/tiling"
)

// listConfig is a tiling.Config as list --json writes it: tiling.Config's
// own JSON (its fields, its omitempty rules) under snake_case keys, the
// key style of the rest of the document, in field order.
type listConfig tiling.Config

// configKeys maps each JSON key of tiling.Config, in field order, to its
// snake_case form.
func configKeys() (keys, snake []string) {
	t := reflect.TypeFor[tiling.Config]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys = append(keys, name)
		snake = append(snake, snakeKey(name))
	}
	return keys, snake
}

// snakeKey is a Go field name in snake_case: TileM tile_m, CLCStages
// clc_stages, L2KeepOperands l2_keep_operands; DType is dtype, as list
// names it elsewhere.
func snakeKey(s string) string {
	if s == "DType" {
		return "dtype"
	}
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) {
			prev := r[i-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// MarshalJSON writes c's fields under their snake_case keys.
func (c listConfig) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(tiling.Config(c))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	keys, snake := configKeys()
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", snake[i], v)
		n++
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *listConfig) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	keys, snake := configKeys()
	camel := map[string]json.RawMessage{}
	for i, s := range snake {
		if v, ok := m[s]; ok {
			camel[keys[i]] = v
		}
	}
	raw, err := json.Marshal(camel)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, (*tiling.Config)(c))
}
