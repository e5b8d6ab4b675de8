"""Documents for the retrieval-quality benchmark (bench_retrieval_quality.py), written for it and never
used to tune the search: a technical article on one line, manuals with pages, notes, an article, a
mixed Chinese/English guide, and near-topic distractors in both languages.

Each document is (file name, kind, content): kind "text" is written as is, "pdf" is a list of
pages (lists of lines, Latin-1), "docx" is a list of (heading or "", paragraph) pairs.
"""

from __future__ import annotations

from typing import Any

WAL_ARTICLE = (
    "Designing a write-ahead log for a small embedded database starts with one rule: a change is durable only "
    "after its log record has reached stable storage, and the data pages may be written later in any order. "
    "Our engine appends every change as a record with a 32-bit CRC, the transaction id and the page number, "
    "and it groups the records of concurrent transactions into one fsync call, a technique called group "
    "commit, which raised throughput from 900 to 14,000 commits per second on a consumer SSD. Records are "
    "written into segments of 64 MiB; when a segment is full the writer opens the next one, and a segment can "
    "be deleted once a checkpoint has flushed every page it describes. A checkpoint runs every five minutes or "
    "after 1 GiB of log, whichever comes first, and it never blocks writers because it copies the dirty-page "
    "table under a short latch and flushes pages afterwards. Recovery reads the log from the last checkpoint "
    "record forward: the redo pass replays every record whose log sequence number is newer than the page's "
    "own LSN, and the undo pass rolls back transactions that have no commit record. A torn write, where power "
    "fails halfway through a 4 KiB page, is detected by the page checksum and repaired from a full-page image "
    "that the log stores the first time a page is modified after each checkpoint. We rejected memory-mapped "
    "log files because an I/O error on a mapped page arrives as a SIGBUS signal instead of an error code. "
    "Compression of log records with LZ4 saved 38 percent of log volume but cost 6 percent of commit latency, "
    "so it is off by default and can be enabled per database with the wal_compression option. Finally, "
    "replicas receive the log stream over TCP and acknowledge the LSN they have made durable, which lets the "
    "primary wait for one replica before confirming a commit in synchronous mode."
)

INDEX_DISTRACTOR = (
    "B-tree indexes keep keys sorted in pages so that a lookup touches only a handful of pages even in a "
    "table of a billion rows. A secondary index stores the indexed column and a pointer to the row, and a "
    "covering index also stores extra columns so that a query never visits the table at all. Hash indexes "
    "answer equality lookups in constant time but cannot serve range scans. Bloom filters let a storage "
    "engine skip files that cannot contain a key, at the cost of a small false positive rate, usually one "
    "percent with ten bits per key. Index maintenance slows down inserts, so bulk loads often drop indexes "
    "and rebuild them afterwards."
)

ESPRESSO_MANUAL = [
    ["Model K7 espresso machine - user manual", "Page 1: Safety",
     "Always place the machine on a dry, level surface at least 10 cm from the wall.",
     "Never open the boiler cover while the pressure gauge shows more than 0 bar.",
     "Children under 8 years must not use the machine without supervision.",
     "Unplug the machine before cleaning and let it cool for 30 minutes."],
    ["Page 2: First use",
     "Fill the water tank with fresh cold water up to the MAX mark (1.8 litres).",
     "Press the power button; the green lamp blinks while the boiler heats up.",
     "Heating takes about 4 minutes; the lamp stays on when the machine is ready.",
     "Before the first coffee, run two full tanks of water through the group head",
     "and the steam wand to rinse out manufacturing residues."],
    ["Page 3: Making espresso",
     "Use 18 grams of finely ground coffee for a double shot.",
     "Tamp the grounds evenly with a pressure of about 15 kilograms.",
     "Lock the portafilter and press the cup button once for a single shot,",
     "twice for a double shot. A good double shot takes 25 to 30 seconds",
     "and yields about 36 grams of espresso."],
    ["Page 4: Milk and steam",
     "Turn the steam knob counter-clockwise; wait until the wand stops spitting water.",
     "Hold the jug so the wand tip is just below the milk surface to create microfoam.",
     "Stop steaming when the jug is too hot to hold, about 65 degrees Celsius.",
     "Wipe the wand with a damp cloth and purge it for two seconds after every use."],
    ["Page 5: Cleaning and descaling",
     "Backflush the group head with the blind basket and detergent once a week.",
     "Descale every 2 months with soft water, or every month with hard water.",
     "Use citric acid descaler only; vinegar damages the boiler seals.",
     "The descale lamp turns orange when 200 litres have passed through the boiler.",
     "Error E4 means the water tank is empty or not seated correctly."],
]

GRINDER_DISTRACTOR = [
    ["Model G2 coffee grinder - user manual", "Page 1: Grind settings",
     "Turn the collar to choose one of 40 grind settings; lower numbers grind finer.",
     "Settings 1 to 8 suit espresso, 15 to 25 suit filter coffee, 30 and above suit French press.",
     "The hopper holds 250 grams of beans."],
    ["Page 2: Cleaning",
     "Empty the hopper and run the grinder for ten seconds to clear the burrs.",
     "Remove the upper burr by turning it clockwise and brush away old grounds.",
     "Never wash the burrs with water; they rust."],
]

GARDEN_NOTES = """Garden notes, spring 2025

- 14 March: sowed tomatoes (San Marzano and Black Krim) indoors on the windowsill, heat mat at 24 C.
- 20 March: the seed potatoes (Charlotte) are chitting in egg boxes in the garage.
- 2 April: repaired the cold frame lid with a polycarbonate sheet, cost 23 euros at the hardware shop.
- 9 April: planted the potatoes 30 cm apart in rows 60 cm apart, earthed up two weeks later.
- 18 April: slugs ate half the lettuce seedlings; switched to a beer trap and wool pellets.
- 1 May: the neighbour Marta gave us six raspberry canes (Autumn Bliss), planted along the north fence.
- 12 May: last frost date here is around 15 May, so tomatoes stay in the greenhouse until then.
- 20 May: rainwater butt overflowed; ordered a second 200 litre butt and a connector kit.
- 3 June: first strawberries; the netting kept the blackbirds off this year.
- 15 June: aphids on the broad beans, pinched out the tops and sprayed with soapy water.
"""

BICYCLE_ARTICLE = """The bicycle took almost seventy years to reach its modern form. In 1817 Karl Drais showed
his running machine in Mannheim: two wheels in line, steered by the front one, pushed along by the
rider's feet. Pedals came in the 1860s in Paris, fixed directly to the front wheel, which led to the
high-wheeler or penny-farthing of the 1870s, whose huge front wheel gave more distance per pedal turn
but threw riders over the handlebars. The safety bicycle of John Kemp Starley, built in Coventry in
1885, solved this with two wheels of equal size and a chain driving the rear wheel. Three years later
John Boyd Dunlop patented the pneumatic tyre after fitting air-filled tubes to his son's tricycle, and
the ride became comfortable enough for everyday use. The derailleur gear arrived in the early
twentieth century, and the Tour de France allowed derailleurs only from 1937. Cycling also changed
society: in the 1890s the bicycle gave many women independent mobility, and dress reformers promoted
bloomers as practical cycling wear."""

ONBOARDING_MIXED = """# Shanghai office onboarding / 上海办公室入职指南

Welcome! 欢迎加入。This guide mixes English and 中文 because our team does too.

## Badge and Wi-Fi
Your access badge (门禁卡) is issued by the front desk on the 12th floor on your first day. 请带上护照或身份证。
The guest Wi-Fi is "SH-Guest"; employees use "SH-Corp" with their LDAP password (域账号密码).

## Expenses 报销
Submit expenses in the Concur app within 30 days. 出租车发票需要在备注中写明出行目的。
Meals with clients are capped at 300 RMB per person (每人三百元). Receipts over 1,000 RMB need your manager's approval.

## Laptops and VPN
IT hands out a MacBook Pro or a ThinkPad X1; 选择需在入职前一周告知IT。
The VPN client is GlobalProtect; 在家办公必须连接VPN才能访问代码仓库。

## Lunch
The canteen on the 3rd floor (三楼食堂) serves lunch from 11:30 to 13:30; pay with the badge.
"""

CONSISTENT_HASHING = (
    "一致性哈希是分布式缓存和存储系统中分配数据的常用方法。传统的取模哈希在节点数量变化时几乎所有键都要重新分配，"
    "而一致性哈希把节点和键都映射到一个首尾相连的哈希环上，每个键顺时针找到的第一个节点就是它的归属节点，"
    "因此增加或删除一个节点时只有相邻区间的键需要迁移，平均只移动总数的一除以节点数。为了避免节点在环上分布不均导致负载倾斜，"
    "实践中为每个物理节点创建多个虚拟节点，我们的系统默认每台机器一百六十个虚拟节点，使各节点的负载偏差控制在百分之五以内。"
    "哈希函数选用MurmurHash3，因为它速度快且分布均匀，而MD5虽然分布好但计算开销大约高出三倍。"
    "当某个节点宕机时，客户端通过心跳检测在三秒内发现故障，并把请求转发到环上的下一个节点，同时后台开始从副本恢复数据。"
    "每个键默认保存三个副本，分别放在环上顺时针方向的三个不同物理节点上，且这三个节点必须位于不同的机架。"
    "谷歌在二零一四年提出的跳跃一致性哈希不需要存储环结构，只用几行代码和常数内存就能计算归属，但它不支持任意删除中间节点，"
    "只适合节点编号连续的场景。对于热点键，我们在客户端增加了一层本地缓存，有效期设为两秒，从而把热点节点的请求量降低了约七成。"
    "迁移数据时采用限速策略，每个节点每秒最多迁移五十兆字节，避免影响在线业务。"
)

LOAD_BALANCING_DISTRACTOR = (
    "负载均衡用于把请求分发到多台服务器上。轮询算法依次把请求交给每台服务器，实现简单但不考虑服务器的实际负载；"
    "加权轮询根据服务器性能分配不同的权重；最少连接算法把新请求交给当前连接数最少的服务器，适合长连接的场景。"
    "四层负载均衡工作在传输层，只看地址和端口，速度快；七层负载均衡可以根据网址路径和请求头做更细的路由。"
    "健康检查通常每五秒执行一次，连续三次失败就把服务器移出列表。"
)

RICE_COOKER_MANUAL: list[tuple[str, str]] = [
    ("智能电饭煲使用说明书", "感谢您购买本产品。使用前请仔细阅读本说明书并妥善保管。"),
    ("安全注意事项", "请使用额定电压二百二十伏的独立插座，不要与其他大功率电器共用插线板。"
                 "烹饪过程中不要用手或脸靠近排气口，以免被蒸汽烫伤。内胆不可直接放在明火上加热。"),
    ("煮饭方法", "用量杯量米，每杯约一百五十克。淘米后把内胆放入锅内，按内胆刻度加水，"
             "煮白米时米和水的比例约为一比一点二。选择“精煮”模式约需五十分钟，“快煮”模式约需三十分钟，口感稍硬。"),
    ("预约功能", "按“预约”键后用加减键设定完成时间，最长可预约二十四小时。夏季预约时间不宜超过八小时，以免米饭变质。"),
    ("保温", "煮好后自动进入保温状态，保温温度约七十度。建议保温不超过十二小时，否则米饭会发黄变干。"),
    ("清洁与保养", "每次使用后清洗内胆和内盖，内胆的不粘涂层请用软布清洗，不要使用钢丝球。"
               "排气阀每周拆下清洗一次。机身只能用湿布擦拭，切勿浸入水中。"),
    ("故障代码", "显示E1表示底部温度传感器故障，请联系售后；显示E3表示内胆未放入或放置不平；"
             "显示E5表示电压过低。指示灯全部不亮时请检查电源插头和保险丝。"),
]

AIR_FRYER_DISTRACTOR: list[tuple[str, str]] = [
    ("空气炸锅使用说明", "本产品利用高速热风烹饪食物，无需或只需少量油。"),
    ("使用方法", "预热三分钟后放入食物，薯条建议二百度炸十五分钟，中途翻动一次。炸篮内食物不要超过最高刻度线。"),
    ("清洁", "炸篮和烤盘可以放入洗碗机清洗。加热管附近的油污冷却后用软刷清理。"),
]

READING_NOTES = """读书笔记：《人类简史》

第一部分 认知革命
- 大约七万年前，智人出现了“认知革命”，开始能够谈论并不存在的事物，比如神话、国家和公司。
- 作者认为，虚构故事让大量陌生人能够合作，这是智人胜过尼安德特人的关键。
- 邓巴数字：靠八卦维系的群体上限约为一百五十人。

第二部分 农业革命
- 约一万二千年前开始农业革命，作者称之为“史上最大的骗局”，因为农民的劳动更辛苦、饮食更单一。
- 小麦“驯化”了人类：人们为了照顾小麦而定居下来。

第三部分 人类的融合统一
- 推动统一的三种力量：货币、帝国和宗教。
- 货币是人类发明的最普遍、最有效的互信系统。

第四部分 科学革命
- 大约五百年前开始的科学革命，起点是承认“我们不知道”。
- 我的想法：书中关于幸福的章节最值得重读，下次读书会（三月十八日）讨论这一章。
"""

TEA_ARTICLE = """茶叶按照加工方式可以分为六大类：绿茶、白茶、黄茶、青茶（乌龙茶）、红茶和黑茶，区别主要在于发酵程度。
绿茶不发酵，保留了较多的茶多酚和叶绿素，代表有西湖龙井和碧螺春，冲泡水温以八十度左右为宜，水太烫会把嫩芽泡熟、产生苦味。
白茶属于轻微发酵，只经过萎凋和干燥两道工序，福建福鼎的白毫银针最为有名，民间有“一年茶、三年药、七年宝”的说法。
乌龙茶是半发酵茶，发酵程度介于绿茶和红茶之间，铁观音和武夷岩茶大红袍都属于这一类，适合用一百度的沸水和紫砂壶冲泡。
红茶是全发酵茶，最早的红茶是福建武夷山桐木关的正山小种，后来传到英国成为下午茶的主角。
黑茶是后发酵茶，云南普洱熟茶通过渥堆发酵制成，存放越久口感越醇和。
一般每一百五十毫升水放三到五克茶叶，第一泡可以快速倒掉用来洗茶。"""

INSURANCE_NOTES = """医保报销流程（个人整理）

一、门诊报销：在定点医院就诊时直接刷医保卡结算，起付线为一千八百元，超过部分报销百分之五十。
二、住院报销：出院时在医院窗口直接结算，一级医院报销比例百分之九十，三级医院报销比例百分之八十五。
三、异地就医：需要提前在国家医保服务平台APP上办理备案，备案后在就医地直接结算；未备案的先自费，回参保地凭发票报销，比例降低十个百分点。
四、需要准备的材料：身份证、医保卡、发票原件、费用明细清单和出院小结。
五、报销时限：费用发生后的十二个月内提交，逾期不予受理。
六、咨询电话：一二三三三。
"""


def documents() -> list[tuple[str, str, Any]]:
    """(file name, kind, content) of every document, answers and distractors together."""
    return [
        ("wal_design.txt", "text", WAL_ARTICLE),
        ("database_indexes.txt", "text", INDEX_DISTRACTOR),
        ("k7_espresso_manual.pdf", "pdf", ESPRESSO_MANUAL),
        ("g2_grinder_manual.pdf", "pdf", GRINDER_DISTRACTOR),
        ("garden_notes.md", "text", GARDEN_NOTES),
        ("bicycle_history.txt", "text", BICYCLE_ARTICLE),
        ("shanghai_onboarding.md", "text", ONBOARDING_MIXED),
        ("一致性哈希.txt", "text", CONSISTENT_HASHING),
        ("负载均衡.txt", "text", LOAD_BALANCING_DISTRACTOR),
        ("电饭煲说明书.docx", "docx", RICE_COOKER_MANUAL),
        ("空气炸锅说明.docx", "docx", AIR_FRYER_DISTRACTOR),
        ("人类简史读书笔记.md", "text", READING_NOTES),
        ("茶叶分类.txt", "text", TEA_ARTICLE),
        ("医保报销笔记.txt", "text", INSURANCE_NOTES),
    ]
