package entity

import (
	"context"
	"strings"
	"testing"
)

func BenchmarkExtract(b *testing.B) {
	x := testExtractor(b)
	texts := []struct {
		name string
		text string
	}{
		{"zh", "张三在阿里巴巴工作，住在杭州西湖区，老王喜欢简约风格，我们上周把计费服务迁移到了PostgreSQL 16"},
		{"en", "We migrated the billing service to PostgreSQL 16 last week; CI uses Python 3.12 and go-sqlite3."},
		{"mixed", "用Go写API服务, CI uses Python 3.12 在北京"},
		// A document chunk: about 4 KB of mixed prose.
		{"chunk4k", strings.Repeat("The deploy script lives in scripts/deploy.sh. 这个项目使用向量数据库。", 50)},
	}
	for _, tt := range texts {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tt.text)))
			for b.Loop() {
				x.Extract(tt.text)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "facts/s")
		})
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
