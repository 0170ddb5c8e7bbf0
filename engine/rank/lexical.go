package rank

// mixLexical is the lexical leg's raw score per candidate: each index's bm25 divided by its
// best in this query (bm25 has no absolute scale), weighted by the mix and summed. The word
// index's list is the leg; the trigram index's is only there when the words found nothing
// (a substring fallback).
func mixLexical(lists []LexicalList, mix LexicalMix) map[Key]float64 {
	n := 0
	for _, list := range lists {
		n = max(n, len(list.Scores))
	}
	out := make(map[Key]float64, n)
	for _, list := range lists {
		w := mix.Words
		if list.Index == Trigram {
			w = mix.Trigram
		}
		for key, v := range headNormalize(list.Scores) {
			out[key] += w * v
		}
	}
	return out
}
