package hygiene

import (
	"strings"
	"testing"
)

func BenchmarkExtract(b *testing.B) {
	texts := []struct {
		name string
		text string
	}{
		{"zh", "老王现在不住在北京了，他搬到了上海。"},
		{"zh purpose", "我们用 Go 写后端，用 Python 3.12 跑测试"},
		{"en", "CI no longer uses Python 3.12; it switched to Python 3.13 last week."},
		{"no verb", "Remember to renew the passport before the trip to Japan in May 2025"},
		// A document chunk: about 4 KB of mixed prose.
		{"chunk4k", strings.Repeat("The deploy script lives in scripts/deploy.sh. 这个项目使用向量数据库。", 50)},
	}
	for _, tt := range texts {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tt.text)))
			for b.Loop() {
				Extract(tt.text)
			}
		})
	}
}

func BenchmarkContradicts(b *testing.B) {
	x, y := Extract("CI uses Python 3.12"), Extract("CI 使用 Python 3.11")
	b.ReportAllocs()
	for b.Loop() {
		Contradicts(x, y)
	}
}
