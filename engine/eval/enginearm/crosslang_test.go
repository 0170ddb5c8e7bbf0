package enginearm

import (
	"fmt"
	"testing"

	"github.com/memdesk/memdesk/engine"
	"github.com/memdesk/memdesk/engine/eval"
)

// crossLanguage is a small bilingual store (issue 31, item 6): English memories asked about
// in Chinese and Chinese memories asked about in English, with no word in common, so only
// the model can answer; and questions about nothing the store holds, in both languages.
func crossLanguage() *eval.Dataset {
	ds := &eval.Dataset{Name: "cross-language", Relevant: map[string]eval.Relevance{}}
	pairs := []struct{ space, memory, question string }{
		{"en", "I adopted a grey cat called Pepper last spring.", "我养的那只灰猫叫什么名字？"},
		{"en", "My sister moved to Lisbon to teach mathematics.", "我姐姐搬到哪个城市去了？"},
		{"en", "The dentist appointment is on the first Tuesday of March.", "我什么时候去看牙医？"},
		{"en", "Our team switched the build server to a faster machine.", "构建服务器换成了什么？"},
		{"en", "Grandmother's soup recipe needs ginger, scallions and tofu.", "奶奶的汤需要哪些材料？"},
		{"en", "I started running five kilometres every Sunday morning.", "我每周日早上做什么运动？"},
		{"zh", "我女儿下个月开始学钢琴。", "What instrument is my daughter going to learn?"},
		{"zh", "公司的年会定在十二月的最后一个周五。", "When is the company's annual party?"},
		{"zh", "我把旧自行车卖给了邻居老王。", "Who bought my old bicycle?"},
		{"zh", "医生建议我少喝咖啡，多睡觉。", "What did the doctor advise me?"},
		{"zh", "我们全家夏天要去云南旅游。", "Where is the family travelling this summer?"},
		{"zh", "阳台上的番茄今年结了很多果子。", "How did the tomatoes on the balcony do this year?"},
	}
	for i, p := range pairs {
		doc, q := fmt.Sprintf("%s/m%d", p.space, i), fmt.Sprintf("%s/q%d", p.space, i)
		ds.Docs = append(ds.Docs, eval.Doc{ID: doc, Text: p.memory})
		ds.Queries = append(ds.Queries, eval.Query{ID: q, Text: p.question})
		ds.Relevant[q] = eval.Relevance{doc: true}
	}
	ds.AddUnrelated([]eval.Query{
		{ID: "u1", Text: "How do I renew a passport abroad?"}, {ID: "u2", Text: "量子计算机用什么材料制造？"},
		{ID: "u3", Text: "Which volcano erupted in Iceland in 2010?"}, {ID: "u4", Text: "高铁票可以改签几次？"},
	}, eval.ScopePrefix)
	return ds
}

// TestCrossLanguageAnswersThroughTheModel holds that a question in one language over
// memories in the other is answered through the model (the words cannot: they share none),
// and that fusion keeps what the model found: three legs reach the model alone. A question
// about nothing the store holds still gets nothing.
func TestCrossLanguageAnswersThroughTheModel(t *testing.T) {
	ds := crossLanguage()
	two := semanticArm(t, ds, eval.ScopePrefix, engine.Options{}, false)
	opts := simulatedModel(t, ds, 0.9)
	alone := semanticArm(t, ds, eval.ScopePrefix, opts, true)
	three := semanticArm(t, ds, eval.ScopePrefix, opts, false)
	t.Logf("recall@10 / nDCG@10 / unrelated empty: two legs %.3f / %.3f / %.3f, model alone %.3f / %.3f, three legs %.3f / %.3f / %.3f",
		two.Recall10, two.NDCG10, *two.EmptyRateUnrelated, alone.Recall10, alone.NDCG10, three.Recall10, three.NDCG10, *three.EmptyRateUnrelated)
	if two.Recall10 > 0.2 {
		t.Errorf("two legs recall@10 %.3f: the words answer across languages, so this set no longer tests the model", two.Recall10)
	}
	if alone.Recall10 < 0.9 {
		t.Errorf("the model alone recall@10 %.3f: the simulated model should find the answers", alone.Recall10)
	}
	if three.Recall10 < alone.Recall10-0.005 || three.NDCG10 < alone.NDCG10-0.005 {
		t.Errorf("three legs %.3f / %.3f dropped the model's cross-language answers (alone %.3f / %.3f)",
			three.Recall10, three.NDCG10, alone.Recall10, alone.NDCG10)
	}
	if *three.EmptyRateUnrelated < *two.EmptyRateUnrelated {
		t.Errorf("unrelated questions answered with nothing: three legs %.3f, two legs %.3f", *three.EmptyRateUnrelated, *two.EmptyRateUnrelated)
	}
}
