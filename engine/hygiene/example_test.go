package hygiene_test

import (
	"fmt"

	"github.com/memdesk/memdesk/engine/hygiene"
)

func ExampleContradicts() {
	old := hygiene.Extract("CI uses Python 3.12")
	for _, fact := range []string{"CI uses Python 3.11", "CI uses Docker", "CI 不再使用 Python"} {
		if c, ok := hygiene.Contradicts(old, hygiene.Extract(fact)); ok {
			fmt.Printf("%s: %s\n", c.Kind, c.Reason)
		} else {
			fmt.Printf("compatible: %s\n", fact)
		}
	}
	// Output:
	// different_object: both say what "ci" uses, but one says "python 3.12" and the other "python 3.11"
	// compatible: CI uses Docker
	// negation: one says "ci" uses "python 3.12" and the other says it does not
}

func ExampleExtract() {
	for _, t := range hygiene.Extract("老王喜欢简约风格，不喜欢红色。Alice no longer lives in Berlin.") {
		fmt.Printf("%s | %s | %s | negated=%v | %s\n", t.Subject, t.Predicate, t.Object, t.Negated, t.Lang)
	}
	// Output:
	// 老王 | 喜欢 | 简约风格 | negated=false | zh
	// 老王 | 喜欢 | 红色 | negated=true | zh
	// alice | live in | berlin | negated=true | en
}
