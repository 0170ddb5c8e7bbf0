package entity

// englishStopwords are lowercase English words that are never entities on their own, even
// capitalized at the start of a sentence ("The", "We", "Yesterday"). Beyond the usual
// function words the list holds what the 4+-letter lowercase rule would otherwise keep:
// frequent verbs in their common forms (regular past tenses are caught by isPastTense,
// irregular ones are listed), frequent adjectives and adverbs, time words (relative time
// is a filter on when a memory was written, never content), number words, generic nouns
// (thing, stuff) and titles (Dr, Mr). Words that are also names people search for are left
// out on purpose: "go" (the language), "build", "meeting", "work", "type", "note".
// Adding or removing a word changes extraction output: bump RulesVersion.
const englishStopwords = `
a able about above across actually after afternoon afterwards again against ago ah all
almost alone along already also although always am among an and another any anybody anyone
anything anyway anywhere are aren around as ask asked asking asks at available away back bad
basically be became because become becomes becoming been before began begin begins behind
being believe below beside besides best better between beyond big both bought bring brings
brought built but by call called calls came can cannot certain clear come comes coming
continue could couldn current daily day days dear definitely did didn different do does
doesn doing don done down dr during each earlier early easy eight either else enough entire
especially etc even evening ever every everybody everyone everything everywhere exactly fast
feel feels felt few finally find finding finds first five fixes fixing follow following
follows for forget forgets forgot found four free friday from full further gave get gets
getting give given gives giving goes going gone good got gotten great guess had hadn happen
happens has hasn have haven having he hello help helping helps her here hers herself hey hi
high him himself his hold holds hope hopefully hour hours how however http https huge
hundred i ie if important in include includes including instead into is isn it its itself
just keep keeps kept kind knew know known knows large last late lately later latest least
leave leaves leaving left less let lets like liked likely likes literally little live lives
long look looked looking looks lot lots love loved loves low made main make makes making
many may maybe me mean means meant meet meets might million mine minute minutes moment
monday month monthly months more morning most mostly move moves moving mr mrs ms much must
my myself near nearly need needs never new next nice night nine no nobody none nor not
nothing now of off often oh ok okay old on once one ones only onto or other others otherwise
ought our ours ourselves out over own paid per perhaps please possible prefer prefers pretty
previous probably put puts putting quick quickly quite rather read reads ready real really
recently remember remembers right said same saturday saw say saying says second seconds see
seeing seem seemed seems seen send sends sent set sets seven several shall she should
shouldn show showed shown shows simple simply since six small so sold some somebody someone
something sometime sometimes somewhere soon sort spend spends spent start starting starts
stay stays still stuff such sunday sure take taken takes taking talk talking talks tell
tells ten than thank thanks that the their theirs them themselves then there therefore these
they thing things think thinks third this those though thought thousand three through
thursday thus time times tiny to today together told tomorrow tonight too took totally
toward towards tried tries true try trying tuesday turn turns twice two under unless until
up upon us use uses using usually various very via wait want wants was wasn way ways we
wednesday week weekend weekly weeks well went were weren what whatever when whenever where
whether which while who whole whom whose why will with within without won would wouldn write
writes writing written wrong wrote www yeah year yearly years yes yesterday yet you your
yours yourself yourselves
`

// chineseGenericNouns are nouns so generic that as entities they only dilute a query (W
// counts them in the entity leg's denominator): 时候, 东西, 事情, in simplified and
// traditional forms. The entity leg's document-frequency anchors handle the rest of the
// generic vocabulary; this list is kept to words that are generic in every context.
const chineseGenericNouns = `
时候 時候 东西 東西 事情 方面 样子 樣子 时间 時間 地方 情况 情況 部分 问题 問題 一些 有些
`

// koreanParticles are case particles stripped from the end of a Hangul word, longest first
// so that 에서 is tried before 에.
const koreanParticles = `
에서는 에게서 으로는 에서 에게 한테 으로 까지 부터 처럼 보다 이랑 하고
은 는 이 가 을 를 에 의 와 과 도 로 만 랑
`

// koreanPredicateEndings are final syllables of verbs and adjectives in common sentence
// endings (갔어요, 좋다, 합니까, 하죠): a Hangul word ending in one is not a noun.
const koreanPredicateEndings = `다요까죠네`
