package engine

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/memdesk/memdesk/store"
)

// A model's fingerprint holds its name and digest, so the same weights registered under
// another name (`ollama create`) or read from another models folder make another vector
// space, and every stored vector looked stale: a 100k-text store embedded again for nothing.
// What a model is, for retrieval, is what it makes of text. Each measured space stores the
// vectors its model made of the noise probes (package probes); a new space whose model makes
// the same vectors of them (every probe's cosine at least sameModelCosine) is the same model,
// and takes the stored space's vectors over instead of embedding the store again.

// sameModelCosine is how close every probe's two vectors must be. The same weights give the
// same vectors up to float rounding (cosine 1 - 1e-6 or so); two different models, even two
// quantisations of one, differ by far more on some of 36 sentences of two languages.
const sameModelCosine = 0.999

// adoptSameModel stores probeVecs as space fp's, and when a stored space's model made the
// same vectors of the probes, moves that space's vectors into fp. A failure is logged: the
// catch-up then embeds the store, which is slow but right.
func (e *Engine) adoptSameModel(ctx context.Context, fp string, probeVecs [][]float32) {
	usable := 0
	for _, v := range probeVecs {
		if len(v) > 0 {
			usable++
		}
	}
	if usable < minNoiseProbes {
		return // too little to recognise a model by
	}
	stored, err := e.st.ProbeVectors(ctx)
	if err != nil {
		e.log.Warn("the stored models' probe vectors were not read; vectors made by the same model under another name are embedded again", "err", err)
		return
	}
	for other, raw := range stored {
		if other == fp || !sameProbeVectors(decodeProbeVectors(raw), probeVecs) {
			continue
		}
		var n int
		err := waitOutBusy(ctx, func() (err error) { n, err = e.st.AdoptVectorSpace(ctx, other, fp); return err })
		if err != nil {
			e.log.Warn("the vectors of the same model under another name were not taken over; they are embedded again", "from", other, "err", err)
			break
		}
		// Warn: the CLI shows warnings only, and a person who renamed a model should see why
		// nothing is embedded again.
		e.log.Warn("the embedding model makes the same vectors as one measured before under another name or digest: its vectors are kept, not embedded again",
			"vectors", n, "from", other, "to", fp)
		break
	}
	if err := waitOutBusy(ctx, func() error { return e.st.PutProbeVectors(ctx, fp, encodeProbeVectors(probeVecs)) }); err != nil {
		e.log.Warn("the model's probe vectors were not stored; a renamed copy of it would be embedded again", "err", err)
	}
}

// sameProbeVectors reports whether a and b are one model's vectors of the probes: as many,
// zero where the other is zero, and every other pair at cosine sameModelCosine or more.
func sameProbeVectors(a, b [][]float32) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	compared := 0
	for i := range a {
		ua, okA := unitCopy(a[i])
		ub, okB := unitCopy(b[i])
		if okA != okB {
			return false
		}
		if !okA {
			continue
		}
		if len(ua) != len(ub) || float64(dot(ua, ub)) < sameModelCosine {
			return false
		}
		compared++
	}
	return compared >= minNoiseProbes
}

// encodeProbeVectors writes vectors as a count, then each as its width and little-endian
// float32s (width 0: no vector).
func encodeProbeVectors(vs [][]float32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(vs)))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, store.EncodeVector(v)...)
	}
	return b
}

// decodeProbeVectors reads encodeProbeVectors' form; nil when it is not that.
func decodeProbeVectors(b []byte) [][]float32 {
	if len(b) < 4 {
		return nil
	}
	n := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	out := make([][]float32, 0, min(n, 1024))
	for range n {
		if len(b) < 4 {
			return nil
		}
		w := int(binary.LittleEndian.Uint32(b))
		b = b[4:]
		if w > math.MaxInt32/4 || len(b) < 4*w {
			return nil
		}
		out = append(out, store.DecodeVector(nil, b[:4*w]))
		b = b[4*w:]
	}
	return out
}
