"""The written question set of bench_retrieval_quality.py: 45 English and 49 Chinese questions over
retrieval_documents.py, each with the document that answers it and a phrase the answering passage
contains (recall is checked at passage level). Questions paraphrase; "mixed" marks questions on the
mixed Chinese/English guide or asked in one language about a document in the other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Question:
    text: str
    document: str
    phrase: str
    language: str
    mixed: bool = False


def _en(text: str, document: str, phrase: str, mixed: bool = False) -> Question:
    return Question(text, document, phrase, "en", mixed)


def _zh(text: str, document: str, phrase: str, mixed: bool = False) -> Question:
    return Question(text, document, phrase, "zh", mixed)


WAL, ESPRESSO, GARDEN, BIKE = "wal_design.txt", "k7_espresso_manual.pdf", "garden_notes.md", "bicycle_history.txt"
ONBOARD = "shanghai_onboarding.md"
HASH, RICE, NOTES = "一致性哈希.txt", "电饭煲说明书.docx", "人类简史读书笔记.md"
TEA, CARE = "茶叶分类.txt", "医保报销笔记.txt"

ENGLISH: tuple[Question, ...] = (
    _en("How much did grouping commits into a single fsync raise throughput?", WAL, "14,000 commits per second"),
    _en("How big is each log segment file?", WAL, "segments of 64 MiB"),
    _en("How often does the database take a checkpoint?", WAL, "every five minutes"),
    _en("During recovery, how does the redo pass decide whether to replay a record?", WAL, "newer than the page's"),
    _en("How is a page that was only half written during a power cut repaired?", WAL, "full-page image"),
    _en("Why did the team not use memory-mapped log files?", WAL, "SIGBUS"),
    _en("What did LZ4 compression of the log cost in commit latency?", WAL, "6 percent of commit latency"),
    _en("Which setting turns on log compression for a database?", WAL, "wal_compression"),
    _en("In synchronous mode, what does the primary wait for before it confirms a commit?", WAL,
        "wait for one replica"),
    _en("How far from the wall must the espresso machine stand?", ESPRESSO, "10 cm from the wall"),
    _en("How much water fits in the K7's tank?", ESPRESSO, "1.8 litres"),
    _en("How long does the boiler need to heat up?", ESPRESSO, "about 4 minutes"),
    _en("What should be done before brewing the very first coffee?", ESPRESSO, "two full tanks of water"),
    _en("How many grams of ground coffee go into a double shot?", ESPRESSO, "18 grams"),
    _en("How long should a double espresso take to run?", ESPRESSO, "25 to 30 seconds"),
    _en("At what temperature should I stop steaming the milk?", ESPRESSO, "65 degrees Celsius"),
    _en("How often does the machine need descaling in a hard-water area?", ESPRESSO, "every month with hard water"),
    _en("Is it fine to descale the espresso machine with vinegar?", ESPRESSO, "vinegar damages the boiler seals"),
    _en("What does the E4 error on the espresso machine mean?", ESPRESSO, "Error E4 means the water tank"),
    _en("Which tomato varieties did I start indoors this spring?", GARDEN, "San Marzano and Black Krim"),
    _en("How much did repairing the cold frame cost?", GARDEN, "23 euros"),
    _en("How far apart are the potato rows?", GARDEN, "rows 60 cm apart"),
    _en("What did I try against the slugs that ate the lettuce?", GARDEN, "beer trap"),
    _en("Who gave us the raspberry canes?", GARDEN, "Marta"),
    _en("When is the last frost usually expected in the garden?", GARDEN, "around 15 May"),
    _en("How large is the second rain barrel I ordered?", GARDEN, "200 litre butt"),
    _en("How did I treat the aphids on the broad beans?", GARDEN, "soapy water"),
    _en("Who showed the first running machine, and in which town?", BIKE, "Karl Drais"),
    _en("Why was riding a penny-farthing dangerous?", BIKE, "threw riders over the handlebars"),
    _en("In which English city was the safety bicycle made?", BIKE, "built in Coventry"),
    _en("Who patented the air-filled tyre?", BIKE, "John Boyd Dunlop"),
    _en("Since when have derailleur gears been allowed in the Tour de France?", BIKE, "only from 1937"),
    _en("What did the bicycle give women in the 1890s?", BIKE, "independent mobility"),
    _en("How is the rear wheel of a safety bicycle driven?", BIKE, "a chain driving the rear wheel"),
    _en("In which city were pedals first fitted to bicycles?", BIKE, "in Paris"),
    _en("Where do new employees get their door badge?", ONBOARD, "front desk on the 12th floor", mixed=True),
    _en("Which wireless network should staff connect to?", ONBOARD, "SH-Corp", mixed=True),
    _en("What is the spending limit for a meal with a client?", ONBOARD, "300 RMB per person", mixed=True),
    _en("Which VPN software does the Shanghai office use?", ONBOARD, "GlobalProtect", mixed=True),
    _en("When is lunch served in the canteen?", ONBOARD, "11:30 to 13:30", mixed=True),
    _en("How soon after spending must expenses be filed?", ONBOARD, "within 30 days", mixed=True),
    _en("Which laptop models can a new hire choose from?", ONBOARD, "MacBook Pro or a ThinkPad X1", mixed=True),
    _en("Why did the cache team pick MurmurHash3 for consistent hashing?", HASH, "MurmurHash3", mixed=True),
    _en("What false positive rate does a bloom filter reach with ten bits per key?", "database_indexes.txt",
        "one percent with ten bits per key"),
    _en("Which grinder settings are meant for espresso?", "g2_grinder_manual.pdf", "Settings 1 to 8 suit espresso"),
)

CHINESE: tuple[Question, ...] = (
    _zh("增删节点时，一致性哈希平均要迁移多少比例的键？", HASH, "一除以节点数"),
    _zh("系统默认给每台物理机分配多少个虚拟节点？", HASH, "一百六十个虚拟节点"),
    _zh("用MD5做哈希函数有什么缺点？", HASH, "计算开销大约高出三倍"),
    _zh("某个节点宕机后，客户端多长时间能察觉？", HASH, "三秒内发现故障"),
    _zh("每个键默认存几份副本？", HASH, "三个副本"),
    _zh("存放副本的节点在机房位置上有什么要求？", HASH, "位于不同的机架"),
    _zh("跳跃一致性哈希有什么限制？", HASH, "不支持任意删除中间节点"),
    _zh("热点键的请求压力是怎么降下来的？", HASH, "本地缓存"),
    _zh("迁移数据时每个节点的速度上限是多少？", HASH, "五十兆字节"),
    _zh("传统取模哈希在扩容时会遇到什么麻烦？", HASH, "几乎所有键都要重新分配"),
    _zh("最少连接算法适用于哪类场景？", "负载均衡.txt", "适合长连接的场景"),
    _zh("服务器健康检查失败多少次会被摘除？", "负载均衡.txt", "连续三次失败"),
    _zh("电饭煲应该插在什么样的插座上？", RICE, "独立插座"),
    _zh("煮饭时为什么不能把脸凑近出气的地方？", RICE, "以免被蒸汽烫伤"),
    _zh("一量杯米大概有多重？", RICE, "每杯约一百五十克"),
    _zh("煮白米饭时米和水按什么比例放？", RICE, "一比一点二"),
    _zh("快速煮饭模式要多久？", RICE, "模式约需三十分钟"),
    _zh("电饭煲预约最长能定多长时间？", RICE, "最长可预约二十四小时"),
    _zh("夏天用预约功能需要注意什么？", RICE, "不宜超过八小时"),
    _zh("米饭一直保温会怎么样，建议保温多久？", RICE, "不超过十二小时"),
    _zh("电饭煲内胆能不能用钢丝球刷？", RICE, "不要使用钢丝球"),
    _zh("电饭煲屏幕显示E3是什么故障？", RICE, "E3表示内胆未放入"),
    _zh("空气炸锅炸薯条需要多少温度和时间？", "空气炸锅说明.docx", "二百度炸十五分钟"),
    _zh("空气炸锅的炸篮可以用洗碗机洗吗？", "空气炸锅说明.docx", "放入洗碗机清洗"),
    _zh("认知革命大概发生在多少年前？", NOTES, "大约七万年前"),
    _zh("作者认为智人为什么能胜过尼安德特人？", NOTES, "虚构故事让大量陌生人能够合作"),
    _zh("靠聊八卦维持的群体人数上限是多少？", NOTES, "一百五十人"),
    _zh("作者为什么说农业革命是一场骗局？", NOTES, "史上最大的骗局"),
    _zh("书里说哪种作物驯化了人类？", NOTES, "驯化”了人类"),
    _zh("让人类走向统一的三股力量是什么？", NOTES, "货币、帝国和宗教"),
    _zh("科学革命是从什么态度开始的？", NOTES, "我们不知道"),
    _zh("读书会哪天讨论关于幸福的章节？", NOTES, "三月十八日"),
    _zh("六大茶类主要按什么来区分？", TEA, "区别主要在于发酵程度"),
    _zh("冲泡龙井这类绿茶水温多少合适？", TEA, "八十度左右"),
    _zh("白茶的制作只有哪两道工序？", TEA, "萎凋和干燥"),
    _zh("白毫银针是哪里产的？", TEA, "福建福鼎"),
    _zh("铁观音属于六大茶类中的哪一类？", TEA, "铁观音和武夷岩茶大红袍"),
    _zh("世界上最早的红茶叫什么？", TEA, "正山小种"),
    _zh("普洱熟茶的发酵方式是什么？", TEA, "渥堆发酵"),
    _zh("一百五十毫升水应该放多少茶叶？", TEA, "三到五克茶叶"),
    _zh("门诊看病的医保起付线是多少钱？", CARE, "一千八百元"),
    _zh("在三级医院住院能报销几成？", CARE, "三级医院报销比例百分之八十五"),
    _zh("去外地看病之前需要办什么手续？", CARE, "办理备案"),
    _zh("申请医保报销要带哪些材料？", CARE, "费用明细清单"),
    _zh("医疗费用要在多长时间内申请报销？", CARE, "十二个月内提交"),
    _zh("办理门禁卡那天需要带什么证件？", ONBOARD, "请带上护照或身份证", mixed=True),
    _zh("出租车发票报销时备注里要写什么？", ONBOARD, "出行目的", mixed=True),
    _zh("在家里办公怎么才能访问代码仓库？", ONBOARD, "在家办公必须连接VPN", mixed=True),
    _zh("公司食堂在几层？", ONBOARD, "三楼食堂", mixed=True),
)
