// Package probes holds the sentences the semantic leg measures an embedding model with
// (engine/semantic.go): mutually unrelated sentences, whose closest pair is the model's noise,
// and paraphrase pairs, which a model with a sense of meaning puts closer than that. They are
// bilingual because the store is: a model blind to one of the two languages cannot lead.
//
// Changing them changes every stored calibration (the probe set's version is part of it):
// measure first (doc/semantic.md).
package probes

// Version names this probe set; a calibration made with another is measured again.
const Version = "probes/2"

// Noise returns sentences about nothing in common with each other: every topic appears
// once, in Chinese or in English.
func Noise() []string {
	return []string{
		"Our flight to Lisbon was delayed by three hours because of fog.",
		"The violin concerto was first performed in Vienna in 1806.",
		"Rotate the tires every ten thousand kilometres to keep the wear even.",
		"Photosynthesis turns sunlight, water and carbon dioxide into sugar.",
		"The quarterly tax return is due at the end of the month.",
		"She knitted a green scarf for her grandson's birthday.",
		"The backup job restarts the database server every night at two.",
		"Elephants can recognise themselves in a mirror.",
		"He scored the winning goal in the last minute of extra time.",
		"Jupiter has at least ninety known moons.",
		"Wet paint: please do not lean on the railing.",
		"The bakery on the corner sells rye bread only on Saturdays.",
		"The museum lends its medieval maps to a school in Oslo.",
		"Add two spoons of vinegar before the soup starts to boil.",
		"The ferry crossing was cancelled because of the strike.",
		"Our landlord finally repaired the broken heater in the hallway.",
		"The chess champion resigned after forty moves.",
		"Volcanic ash closed the airport for a week.",
		"明天上午十点在三楼会议室面试新同事。",
		"这只猫每天晚上都要爬到书架上睡觉。",
		"长江是中国最长的河流，全长约六千三百公里。",
		"快递员说包裹下午送到小区门口。",
		"奶奶种的西红柿今年结得特别多。",
		"这双跑鞋穿了两年，鞋底还很新。",
		"唐代诗人李白留下了近千首诗。",
		"外婆的老房子在一条很窄的巷子里。",
		"感冒的时候要多喝水、多休息。",
		"他在大学里学的是土木工程。",
		"冬天的哈尔滨会举办冰雕节。",
		"这份合同需要两位股东签字才能生效。",
		"楼下新开了一家卖牛肉面的小店。",
		"表哥上个月买了一辆二手摩托车。",
		"图书馆周一闭馆进行设备检修。",
		"这次数学考试的最后一道题特别难。",
		"阳台上的多肉植物被太阳晒伤了。",
		"地铁二号线延长到了机场。",
	}
}

// Paraphrases returns pairs that say the same thing in other words, and across the two
// languages.
func Paraphrases() [][2]string {
	return [][2]string{
		{"The doctor said I should rest my knee for two weeks.", "My physician told me not to use my injured leg for a fortnight."},
		{"The car would not start this morning.", "My vehicle's engine failed to turn on today."},
		{"I am allergic to peanuts.", "Eating nuts makes me ill."},
		{"The meeting was moved to Friday.", "We rescheduled the conference call to the end of the week."},
		{"My sister works as a nurse in a children's hospital.", "She has a job caring for sick kids at a paediatric clinic."},
		{"We adopted a puppy last spring.", "A young dog joined our family a few months ago."},
		{"I prefer tea over coffee in the morning.", "At breakfast I would rather drink tea than coffee."},
		{"The project deadline is next Monday.", "Our work has to be finished by the start of next week."},
		{"老王喜欢简约风格。", "我的领导偏爱简单朴素的设计。"},
		{"我下周要去北京出差。", "下个星期我因为工作要到首都去。"},
		{"女儿今年考上了大学。", "我家孩子这次高考被录取了。"},
		{"他每天早上六点起床跑步。", "他习惯天刚亮就出门锻炼。"},
		{"这家餐厅的菜太咸了。", "那个饭馆做的菜放盐太多。"},
		{"我的手机屏幕摔碎了。", "手机掉在地上，显示屏裂了。"},
		{"周末我们全家去海边度假。", "星期六和星期天一家人到海滩玩了两天。"},
		{"爷爷的血压最近有点高。", "祖父这阵子血压偏高。"},
		{"小李对花生过敏。", "Xiao Li has a peanut allergy."},
		{"这台笔记本电脑的电池只能用两个小时。", "The laptop battery lasts only two hours."},
		{"我每周三晚上学钢琴。", "I take piano lessons on Wednesday evenings."},
		{"我们公司明年要搬到上海。", "Our company is relocating to Shanghai next year."},
		{"妈妈不喜欢吃辣的东西。", "My mother does not like spicy food."},
		{"这本小说讲的是一个侦探的故事。", "The novel is about a detective."},
		{"下雨了，记得带伞。", "It is raining, so remember to take an umbrella."},
		{"他把钥匙忘在办公室了。", "He left his keys at the office."},
	}
}
