<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BackendChoice</name>
    <message>
        <source>the settings send requests to a remote server</source>
        <translation>设置指定把请求发送到远程服务器</translation>
    </message>
    <message>
        <source>GGUF files run on llama.cpp (vLLM was chosen in settings, but it does not load GGUF)</source>
        <translation>GGUF 文件由 llama.cpp 运行（设置中选择了 vLLM，但它不能加载 GGUF）</translation>
    </message>
    <message>
        <source>GGUF files run on llama.cpp</source>
        <translation>GGUF 文件由 llama.cpp 运行</translation>
    </message>
    <message>
        <source>{0} is a Hugging Face model folder, which llama.cpp cannot load.</source>
        <translation>{0} 是 Hugging Face 模型文件夹，llama.cpp 无法加载。</translation>
    </message>
    <message>
        <source>Choose a .gguf file, or set the backend to auto or vLLM.</source>
        <translation>请选择 .gguf 文件，或把后端设为“自动”或 vLLM。</translation>
    </message>
    <message>
        <source>Use a .gguf model with llama.cpp instead.</source>
        <translation>请改用 .gguf 模型，由 llama.cpp 运行。</translation>
    </message>
    <message>
        <source>vLLM runs only on Linux, not on {0}.</source>
        <translation>vLLM 只能在 Linux 上运行，不能在 {0} 上运行。</translation>
    </message>
    <message>
        <source>vLLM was chosen in settings, but it is not installed.</source>
        <translation>设置中选择了 vLLM，但它没有安装。</translation>
    </message>
    <message>
        <source>vLLM was chosen in settings; its CPU build runs the model on the processor</source>
        <translation>设置中选择了 vLLM；它的 CPU 版本在处理器上运行模型</translation>
    </message>
    <message>
        <source>vLLM was chosen in settings, but the installed vLLM needs an NVIDIA GPU and this machine has none.</source>
        <translation>设置中选择了 vLLM，但已安装的 vLLM 需要 NVIDIA GPU，而这台机器没有。</translation>
    </message>
    <message>
        <source>vLLM was chosen in settings; it runs the model on the NVIDIA GPU</source>
        <translation>设置中选择了 vLLM；它在 NVIDIA GPU 上运行模型</translation>
    </message>
    <message>
        <source>{0} is a Hugging Face model folder; on this machine models run on llama.cpp, which needs a .gguf file.</source>
        <translation>{0} 是 Hugging Face 模型文件夹；本机上的模型由 llama.cpp 运行，它需要 .gguf 文件。</translation>
    </message>
    <message>
        <source>Choose a GGUF version of the model ({0}).</source>
        <translation>请选择该模型的 GGUF 版本（{0}）。</translation>
    </message>
    <message>
        <source>Linux with unified memory and vLLM installed: vLLM makes the best use of the shared pool.</source>
        <translation>统一内存的 Linux 且已安装 vLLM：vLLM 能最好地利用共享内存池。</translation>
    </message>
    <message>
        <source>Unified memory on Linux, but vLLM is not installed, so llama.cpp runs the model.</source>
        <translation>Linux 上的统一内存，但未安装 vLLM，因此由 llama.cpp 运行模型。</translation>
    </message>
    <message>
        <source>Unified memory on {0}, where vLLM does not run: llama.cpp runs the model.</source>
        <translation>{0} 上的统一内存，vLLM 在该系统上无法运行：由 llama.cpp 运行模型。</translation>
    </message>
    <message>
        <source>Discrete GPU: llama.cpp offloads layers to its memory and keeps the rest in RAM.</source>
        <translation>独立 GPU：llama.cpp 把部分层放到显存中，其余留在内存里。</translation>
    </message>
    <message>
        <source>No GPU: llama.cpp runs the model on the CPU.</source>
        <translation>无 GPU：llama.cpp 在 CPU 上运行模型。</translation>
    </message>
</context>
<context>
    <name>CatalogErrors</name>
    <message>
        <source>{0} has no variant &apos;{1}&apos;.</source>
        <translation>{0} 没有变体 &apos;{1}&apos;。</translation>
    </message>
    <message>
        <source>Choose one of: {0}.</source>
        <translation>请从以下选项中选择：{0}。</translation>
    </message>
    <message>
        <source>Did you mean {0}?</source>
        <translation>您是指 {0} 吗？</translation>
    </message>
    <message>
        <source>Run `unidesk models list` to see the catalog&apos;s ids.</source>
        <translation>运行 `unidesk models list` 查看目录中的 id。</translation>
    </message>
    <message>
        <source>&apos;{0}&apos; is not in the model catalog.</source>
        <translation>&apos;{0}&apos; 不在模型目录中。</translation>
    </message>
    <message>
        <source>Cannot read the model catalog {0}: {1}.</source>
        <translation>无法读取模型目录 {0}：{1}。</translation>
    </message>
    <message>
        <source>The model catalog {0} is not valid JSON (line {1}: {2}).</source>
        <translation>模型目录 {0} 不是有效的 JSON（第 {1} 行：{2}）。</translation>
    </message>
    <message>
        <source>The catalog&apos;s facts for {0} are incomplete: {1}</source>
        <translation>目录中 {0} 的参数不完整：{1}</translation>
    </message>
    <message>
        <source>The catalog&apos;s facts for {0} lack vocab_size.</source>
        <translation>目录中 {0} 的参数缺少 vocab_size。</translation>
    </message>
    <message>
        <source>Model catalog {0}: {1} {2}.</source>
        <translation>模型目录 {0}：{1} {2}。</translation>
    </message>
    <message>
        <source>Fix the catalog file (or reinstall UniDesk if you did not edit it).</source>
        <translation>请修正目录文件（如果您没有编辑过它，请重新安装 UniDesk）。</translation>
    </message>
    <message>
        <source>the file</source>
        <translation>该文件</translation>
    </message>
    <message>
        <source>must be a JSON object with a &apos;models&apos; list</source>
        <translation>必须是包含 &apos;models&apos; 列表的 JSON 对象</translation>
    </message>
    <message>
        <source>must be {0}, not {1}</source>
        <translation>必须是 {0}，而不是 {1}</translation>
    </message>
    <message>
        <source>repeats the id &apos;{0}&apos;</source>
        <translation>重复了 id &apos;{0}&apos;</translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation>必须是一个对象</translation>
    </message>
    <message>
        <source>has unknown keys {0}</source>
        <translation>含有未知的键 {0}</translation>
    </message>
    <message>
        <source>must be a non-empty string</source>
        <translation>必须是非空字符串</translation>
    </message>
    <message>
        <source>must be lower-case letters, digits, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;</source>
        <translation>只能包含小写字母、数字、&apos;.&apos;、&apos;_&apos; 或 &apos;-&apos;</translation>
    </message>
    <message>
        <source>must be a non-empty list of language codes</source>
        <translation>必须是非空的语言代码列表</translation>
    </message>
    <message>
        <source>must be a positive whole number of tokens</source>
        <translation>必须是正整数个词元</translation>
    </message>
    <message>
        <source>must be the model&apos;s config.json facts (an object)</source>
        <translation>必须是模型 config.json 中的参数（一个对象）</translation>
    </message>
    <message>
        <source>must be a non-empty list</source>
        <translation>必须是非空列表</translation>
    </message>
    <message>
        <source>repeats the variant id &apos;{0}&apos;</source>
        <translation>重复了变体 id &apos;{0}&apos;</translation>
    </message>
    <message>
        <source>&apos;{0}&apos; is not one of its variants</source>
        <translation>&apos;{0}&apos; 不是它的变体之一</translation>
    </message>
    <message>
        <source>must be &apos;gguf&apos; or &apos;hf&apos;</source>
        <translation>必须是 &apos;gguf&apos; 或 &apos;hf&apos;</translation>
    </message>
    <message>
        <source>must be a hub repository id like &apos;owner/name&apos;</source>
        <translation>必须是类似 &apos;owner/name&apos; 的模型仓库 id</translation>
    </message>
    <message>
        <source>must name a .gguf file at the top of the repository</source>
        <translation>必须指向仓库顶层的一个 .gguf 文件</translation>
    </message>
    <message>
        <source>is only for GGUF variants (HF variants download the repository)</source>
        <translation>仅适用于 GGUF 变体（HF 变体会下载整个仓库）</translation>
    </message>
    <message>
        <source>must be a positive whole number</source>
        <translation>必须是正整数</translation>
    </message>
    <message>
        <source>must be null or 64 lower-case hex digits</source>
        <translation>必须为 null 或 64 位小写十六进制数字</translation>
    </message>
    <message>
        <source>must be a commit id, tag or branch of the repository</source>
        <translation>必须是仓库的提交 id、标签或分支</translation>
    </message>
    <message>
        <source>must map an HF variant&apos;s file names to 64 lower-case hex digits</source>
        <translation>必须把 HF 变体的文件名映射到 64 位小写十六进制数字</translation>
    </message>
    <message>
        <source>must be a {0}</source>
        <translation>必须是 {0} 类型</translation>
    </message>
</context>
<context>
    <name>CatalogPage</name>
    <message>
        <source>Judged for</source>
        <translation>评估条件：</translation>
    </message>
    <message>
        <source>tokens per chat ×</source>
        <translation>词元/对话 ×</translation>
    </message>
    <message>
        <source>parallel chats</source>
        <translation>个并行对话</translation>
    </message>
    <message>
        <source>parallel chat</source>
        <translation>个对话</translation>
    </message>
    <message>
        <source>Context length to judge the models for</source>
        <translation>用于评估模型的上下文长度</translation>
    </message>
    <message>
        <source>Number of parallel chats to judge the models for</source>
        <translation>用于评估模型的并行对话数</translation>
    </message>
    <message>
        <source>Hide models that do not fit</source>
        <translation>隐藏装不下的模型</translation>
    </message>
    <message>
        <source>on</source>
        <translation>机器：</translation>
    </message>
    <message>
        <source>this computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Machine to judge the models for</source>
        <translation>用于评估模型的机器</translation>
    </message>
    <message>
        <source>Looking at this machine…</source>
        <translation>正在查看本机…</translation>
    </message>
    <message>
        <source>{0} · {1} · licence {2}</source>
        <translation>{0} · {1} · 许可证 {2}</translation>
    </message>
    <message>
        <source>Languages: {0}</source>
        <translation>语言：{0}</translation>
    </message>
</context>
<context>
    <name>CatalogPins</name>
    <message>
        <source>Pinned to commit {0}: checked against the catalog&apos;s sha256 (from {1}).</source>
        <translation>已固定到提交 {0}：按目录给出的 sha256 校验（来自 {1}）。</translation>
    </message>
    <message>
        <source>Checksum pinned: checked against the catalog&apos;s sha256 (from {0}); the file comes from the &apos;{1}&apos; branch, so a file the publisher replaced is refused.</source>
        <translation>已固定校验和：按目录给出的 sha256 校验（来自 {0}）；文件取自“{1}”分支，发布者替换过的文件会被拒绝。</translation>
    </message>
    <message>
        <source>Not pinned: follows the &apos;{0}&apos; branch; each file is checked against the checksum the hub publishes for it (sha256 for the weights, git&apos;s id for small files).</source>
        <translation>未固定：跟随“{0}”分支，每个文件按模型仓库为它公布的校验和校验（权重文件用 sha256，小文件用 git 对象哈希）。</translation>
    </message>
    <message>
        <source>Not pinned: follows the &apos;{0}&apos; branch and is checked against the sha256 the hub publishes for the file.</source>
        <translation>未固定：跟随“{0}”分支，按模型仓库为该文件公布的 sha256 校验。</translation>
    </message>
</context>
<context>
    <name>CatalogTree</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载大小</translation>
    </message>
    <message>
        <source>On this machine</source>
        <translation>在本机上</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <source>Languages</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>The most tokens a second it can write here: memory bandwidth over the bytes read per token</source>
        <translation>它在这里每秒最多能生成的词元数：内存带宽除以每个词元要读取的字节数</translation>
    </message>
    <message>
        <source>Model catalog</source>
        <translation>模型目录</translation>
    </message>
    <message>
        <source>{0} · {1} parameters</source>
        <translation>{0} · {1} 参数</translation>
    </message>
    <message>
        <source>GGUF</source>
        <translation>GGUF</translation>
    </message>
    <message>
        <source>Hugging Face</source>
        <translation>Hugging Face</translation>
    </message>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>{0}%</source>
        <translation>{0}%</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>正在下载</translation>
    </message>
</context>
<context>
    <name>ChatErrors</name>
    <message>
        <source>The question does not fit: with the system prompt it takes {0} tokens, and {1} more are kept for the answer, but the model&apos;s context holds {2} tokens.</source>
        <translation>问题放不下：连同系统提示词需要 {0} 词元，另外还要为回答保留 {1} 词元，但模型的上下文只能容纳 {2} 词元。</translation>
    </message>
    <message>
        <source>Shorten the question, or raise the context length in Settings and reload the model.</source>
        <translation>请缩短问题，或在“设置”中调高上下文长度并重新加载模型。</translation>
    </message>
    <message>
        <source>The conversation could not be written to {0}: {1}.</source>
        <translation>无法把对话写入 {0}：{1}。</translation>
    </message>
    <message>
        <source>Choose another folder or file name.</source>
        <translation>请选择其他文件夹或文件名。</translation>
    </message>
    <message>
        <source>{0} could not be read: {1}.</source>
        <translation>无法读取 {0}：{1}。</translation>
    </message>
    <message>
        <source>Check the file and try again.</source>
        <translation>请检查该文件后重试。</translation>
    </message>
    <message>
        <source>{0} is not a UniDesk conversation export: it is not JSON text ({1}).</source>
        <translation>{0} 不是 UniDesk 导出的对话：它不是 JSON 文本（{1}）。</translation>
    </message>
    <message>
        <source>Choose a .json file exported from UniDesk.</source>
        <translation>请选择从 UniDesk 导出的 .json 文件。</translation>
    </message>
    <message>
        <source>This is not a UniDesk conversation export: {0}.</source>
        <translation>这不是 UniDesk 导出的对话：{0}。</translation>
    </message>
    <message>
        <source>the file does not hold a JSON object</source>
        <translation>文件中不是 JSON 对象</translation>
    </message>
    <message>
        <source>its format field is missing or different</source>
        <translation>它的 format 字段缺失或不同</translation>
    </message>
    <message>
        <source>it comes from a newer UniDesk</source>
        <translation>它来自更新版本的 UniDesk</translation>
    </message>
    <message>
        <source>it has no conversation</source>
        <translation>其中没有对话</translation>
    </message>
    <message>
        <source>it has no message list</source>
        <translation>其中没有消息列表</translation>
    </message>
    <message>
        <source>This conversation export has a damaged message ({0}).</source>
        <translation>此对话导出文件中有一条消息已损坏（{0}）。</translation>
    </message>
    <message>
        <source>Export the conversation again.</source>
        <translation>请重新导出该对话。</translation>
    </message>
    <message>
        <source>message {0} appears twice</source>
        <translation>消息 {0} 出现了两次</translation>
    </message>
    <message>
        <source>message {0} answers a message that comes later or is missing</source>
        <translation>消息 {0} 回复的消息在其后面或已缺失</translation>
    </message>
    <message>
        <source>A system prompt preset needs a name.</source>
        <translation>系统提示词预设需要一个名称。</translation>
    </message>
    <message>
        <source>Type a name for it.</source>
        <translation>请为它输入名称。</translation>
    </message>
    <message>
        <source>Built-in system prompt presets cannot be deleted.</source>
        <translation>内置的系统提示词预设不能删除。</translation>
    </message>
    <message>
        <source>Edit its text instead.</source>
        <translation>可以改为编辑它的文字。</translation>
    </message>
    <message>
        <source>The message is empty.</source>
        <translation>消息是空的。</translation>
    </message>
    <message>
        <source>Type a question first.</source>
        <translation>请先输入问题。</translation>
    </message>
    <message>
        <source>Only your own messages can be edited.</source>
        <translation>只能编辑你自己的消息。</translation>
    </message>
    <message>
        <source>Pick one of your questions.</source>
        <translation>请选择你的某个问题。</translation>
    </message>
    <message>
        <source>This answer is complete.</source>
        <translation>这个回答已经完整。</translation>
    </message>
    <message>
        <source>Regenerate it for a different answer.</source>
        <translation>如需不同的回答，请重新生成。</translation>
    </message>
    <message>
        <source>Only answers can be regenerated or continued.</source>
        <translation>只有回答才能重新生成或继续。</translation>
    </message>
    <message>
        <source>Pick an answer of the assistant.</source>
        <translation>请选择助手的某个回答。</translation>
    </message>
    <message>
        <source>This answer does not follow a question.</source>
        <translation>这个回答前面没有问题。</translation>
    </message>
    <message>
        <source>Ask the question again.</source>
        <translation>请重新提问。</translation>
    </message>
    <message>
        <source>The answer is too long to continue: it no longer fits in the {0}-token context with room for more.</source>
        <translation>回答太长，无法继续：它已放不进 {0} 词元的上下文，没有继续生成的空间。</translation>
    </message>
    <message>
        <source>Regenerate it, or raise the context length in Settings and reload the model.</source>
        <translation>请重新生成，或在设置中提高上下文长度并重新加载模型。</translation>
    </message>
</context>
<context>
    <name>ChatNotice</name>
    <message>
        <source>Dismiss</source>
        <translation>关闭提示</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Ask anything. Answers are written on this computer; nothing leaves it.</source>
        <translation>尽管提问。回答在本机上生成，任何内容都不会离开本机。</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Message {0} (Enter sends, Shift+Enter new line)</source>
        <translation>给 {0} 发消息（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <source>Message (Enter sends, Shift+Enter new line)</source>
        <translation>输入消息（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <source>No model loaded. Use Load model… to choose one.</source>
        <translation>未加载模型。请用“加载模型…”选择一个。</translation>
    </message>
    <message>
        <source>Loading {0}… You can type meanwhile.</source>
        <translation>正在加载 {0}… 你可以先输入。</translation>
    </message>
    <message>
        <source>the model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>The model could not be loaded. Use Load model… to choose one.</source>
        <translation>模型无法加载。请用“加载模型…”另选一个。</translation>
    </message>
    <message>
        <source>No model is loaded: load one to chat.</source>
        <translation>未加载模型：加载一个模型后即可对话。</translation>
    </message>
    <message>
        <source>The model could not be loaded: {0}</source>
        <translation>无法加载模型：{0}</translation>
    </message>
    <message>
        <source>Load model…</source>
        <translation>加载模型…</translation>
    </message>
    <message>
        <source>Context: counted once the model has loaded</source>
        <translation>上下文：模型加载完成后计算</translation>
    </message>
    <message>
        <source>Context: no model loaded</source>
        <translation>上下文：未加载模型</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Context: unknown</source>
        <translation>上下文：未知</translation>
    </message>
    <message>
        <source>No model is loaded. Load one, then send again.</source>
        <translation>未加载模型。请先加载一个，然后再发送。</translation>
    </message>
    <message>
        <source>The answer failed: {0}</source>
        <translation>回答失败：{0}</translation>
    </message>
</context>
<context>
    <name>CitationChip</name>
    <message>
        <source>Given to the model as a source; the answer does not cite it.</source>
        <translation>已作为来源提供给模型；回答中没有引用它。</translation>
    </message>
    <message>
        <source>Source {0}</source>
        <translation>来源 {0}</translation>
    </message>
    <message>
        <source>Open the file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>Show the passage</source>
        <translation>显示段落</translation>
    </message>
    <message>
        <source>page {0}</source>
        <translation>第 {0} 页</translation>
    </message>
</context>
<context>
    <name>Citations</name>
    <message>
        <source>{0}, p. {1}</source>
        <translation>{0}，第 {1} 页</translation>
    </message>
    <message>
        <source>{0}, {1}</source>
        <translation>{0}，{1}</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send (Enter). Shift+Enter starts a new line.</source>
        <translation>发送（Enter）。Shift+Enter 换行。</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the answer; what it wrote so far is kept</source>
        <translation>停止回答；已写出的内容会保留</translation>
    </message>
</context>
<context>
    <name>ContextMeter</name>
    <message>
        <source>Context: no model loaded</source>
        <translation>上下文：未加载模型</translation>
    </message>
    <message>
        <source>Context used</source>
        <translation>已用上下文</translation>
    </message>
    <message>
        <source>Next prompt: {0} / {1} tokens</source>
        <translation>下一次提示：{0} / {1} 词元</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Earlier messages</source>
        <translation>之前的消息</translation>
    </message>
    <message>
        <source>Your question</source>
        <translation>你的问题</translation>
    </message>
    <message>
        <source>Kept for the answer</source>
        <translation>为回答预留</translation>
    </message>
    <message>
        <source>Free</source>
        <translation>剩余</translation>
    </message>
    <message>
        <source>What this conversation sends with your next message: {0} of the {1} tokens one chat can hold (its context window).</source>
        <translation>下一条消息连同本对话一起发送的内容：{0} 词元，单个对话最多可容纳 {1} 词元（上下文窗口）。</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <source>Sources are searched when you send (not counted before).</source>
        <translation>发送时才检索来源（之前不计入）。</translation>
    </message>
    <message>
        <source>The KV cache in the gauges counts something else: the cells filled in all chats, including earlier prompts and answers kept so a follow-up is not read again.</source>
        <translation>仪表中的 KV 缓存统计的是另一回事：所有对话已占用的单元，包括为免重复读取而保留的先前提示和回答。</translation>
    </message>
    <message>
        <source>The question needs {0} tokens (with room for the answer); the context holds {1}.</source>
        <translation>这个问题需要 {0} 词元（含回答的空间），而上下文只能容纳 {1}。</translation>
    </message>
</context>
<context>
    <name>ConversationFiles</name>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>UniDesk conversation (*.json)</source>
        <translation>UniDesk 对话 (*.json)</translation>
    </message>
    <message>
        <source>Export conversation</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>Import conversation</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>UniDesk conversation (*.json);;All files (*)</source>
        <translation>UniDesk 对话 (*.json);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>ConversationSidebar</name>
    <message>
        <source>Pinned</source>
        <translation>已置顶</translation>
    </message>
    <message>
        <source>Writing an answer…</source>
        <translation>正在写回答…</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Start a new conversation ({0})</source>
        <translation>开始新对话（{0}）</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Pin</source>
        <translation>置顶</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>取消置顶</translation>
    </message>
    <message>
        <source>Pin to the top</source>
        <translation>置顶</translation>
    </message>
    <message>
        <source>Delete conversation</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete “{0}” and all its messages? This cannot be undone.</source>
        <translation>删除“{0}”及其所有消息？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Rename conversation</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <source>Title:</source>
        <translation>标题：</translation>
    </message>
</context>
<context>
    <name>DamagedDatabase</name>
    <message>
        <source>Conversations file damaged</source>
        <translation>对话文件已损坏</translation>
    </message>
    <message>
        <source>Your conversations file cannot be read: it is damaged.</source>
        <translation>无法读取你的对话文件：它已损坏。</translation>
    </message>
    <message>
        <source>UniDesk can move it aside, keeping it in {0}, and start with an empty history. Nothing is deleted; you can try to repair or restore it later.</source>
        <translation>UniDesk 可以把它移到一旁（仍保留在 {0} 中），并以空的历史记录开始。不会删除任何内容；你以后可以尝试修复或恢复它。</translation>
    </message>
    <message>
        <source>Move aside and start fresh</source>
        <translation>移到一旁并重新开始</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
</context>
<context>
    <name>DocumentErrors</name>
    <message>
        <source>the file is empty (0 bytes)</source>
        <translation>文件是空的（0 字节）</translation>
    </message>
    <message>
        <source>it contains only whitespace</source>
        <translation>其中只有空白字符</translation>
    </message>
    <message>
        <source>the file does not exist (moved or deleted?)</source>
        <translation>文件不存在（被移动或删除了？）</translation>
    </message>
    <message>
        <source>no such file or folder</source>
        <translation>没有这个文件或文件夹</translation>
    </message>
    <message>
        <source>this is a folder, not a file</source>
        <translation>这是文件夹，不是文件</translation>
    </message>
    <message>
        <source>this is not a regular file</source>
        <translation>这不是普通文件</translation>
    </message>
    <message>
        <source>permission denied</source>
        <translation>没有访问权限</translation>
    </message>
    <message>
        <source>the file cannot be read ({0})</source>
        <translation>无法读取文件（{0}）</translation>
    </message>
    <message>
        <source>.{0} files are not documents UniDesk can read</source>
        <translation>UniDesk 无法读取 .{0} 文件</translation>
    </message>
    <message>
        <source>its type is unknown and its content is not text</source>
        <translation>文件类型未知，内容也不是文本</translation>
    </message>
    <message>
        <source>this is not a text file: {0}</source>
        <translation>这不是文本文件：{0}</translation>
    </message>
    <message>
        <source>it looks like UTF-16 text but is not valid UTF-16</source>
        <translation>它看似 UTF-16 文本，却不是有效的 UTF-16</translation>
    </message>
    <message>
        <source>it contains NUL bytes, which text files never do</source>
        <translation>其中含有 NUL 字节，而文本文件从不含有这种字节</translation>
    </message>
    <message>
        <source>too many of its bytes are control characters</source>
        <translation>其中控制字符过多</translation>
    </message>
    <message>
        <source>its bytes are not text in any encoding UniDesk knows</source>
        <translation>按 UniDesk 已知的任何编码，其内容都不是文本</translation>
    </message>
    <message>
        <source>no page of this PDF could be read</source>
        <translation>这个 PDF 的页面都无法读取</translation>
    </message>
    <message>
        <source>this PDF has no text layer (scanned pages?)</source>
        <translation>这个 PDF 没有文本层（是扫描页面吗？）</translation>
    </message>
    <message>
        <source>this PDF has no text layer and text recognition found no text in it</source>
        <translation>此 PDF 没有文字层，文字识别也未找到任何文字</translation>
    </message>
    <message>
        <source>text recognition is turned off</source>
        <translation>文字识别已关闭</translation>
    </message>
    <message>
        <source>text recognition is not installed</source>
        <translation>未安装文字识别组件</translation>
    </message>
    <message>
        <source>this picture is damaged or not a PNG/JPEG image</source>
        <translation>此图片已损坏，或不是 PNG/JPEG 图片</translation>
    </message>
    <message>
        <source>no text was recognised in this picture</source>
        <translation>此图片中没有识别出文字</translation>
    </message>
    <message>
        <source>this PDF is protected by a password</source>
        <translation>这个 PDF 受密码保护</translation>
    </message>
    <message>
        <source>this PDF is AES-encrypted and the &apos;cryptography&apos; package is not installed</source>
        <translation>这个 PDF 使用 AES 加密，但未安装 &apos;cryptography&apos; 包</translation>
    </message>
    <message>
        <source>this PDF is damaged and cannot be read ({0})</source>
        <translation>这个 PDF 已损坏，无法读取（{0}）</translation>
    </message>
    <message>
        <source>this web page has no visible text</source>
        <translation>这个网页没有可见文本</translation>
    </message>
    <message>
        <source>this Word document contains no text</source>
        <translation>这个 Word 文档不含文本</translation>
    </message>
    <message>
        <source>this Word file is password-protected (or an old .doc file renamed to .docx)</source>
        <translation>这个 Word 文件受密码保护（或者是改名为 .docx 的旧 .doc 文件）</translation>
    </message>
    <message>
        <source>this is not a valid Word (.docx) file ({0})</source>
        <translation>这不是有效的 Word（.docx）文件（{0}）</translation>
    </message>
    <message>
        <source>this is not a valid Word (.docx) file</source>
        <translation>这不是有效的 Word（.docx）文件</translation>
    </message>
    <message>
        <source>the file is {0} MB, more than the {1} MB limit for one file</source>
        <translation>文件大小为 {0} MB，超过单个文件 {1} MB 的上限</translation>
    </message>
    <message>
        <source>reading it took longer than {0} s, so it was stopped</source>
        <translation>读取耗时超过 {0} 秒，已被停止</translation>
    </message>
    <message>
        <source>reading a part of it took longer than {0} s, so it was stopped</source>
        <translation>读取其中一部分耗时超过 {0} 秒，已被停止</translation>
    </message>
    <message>
        <source>reading it needed more than the {0} MB of memory allowed</source>
        <translation>读取它所需的内存超过允许的 {0} MB</translation>
    </message>
    <message>
        <source>reading it crashed the reader process ({0})</source>
        <translation>读取它导致读取进程崩溃（{0}）</translation>
    </message>
    <message>
        <source>it was killed, probably for using too much memory</source>
        <translation>进程被终止，可能是占用内存过多</translation>
    </message>
    <message>
        <source>reading it was interrupted {0} times (the app stopped meanwhile)</source>
        <translation>读取它已被中断 {0} 次（期间应用停止了）</translation>
    </message>
    <message>
        <source>it would inflate to {0} MB, more than the {1} MB allowed</source>
        <translation>解压后将达到 {0} MB，超过允许的 {1} MB</translation>
    </message>
    <message>
        <source>its part {0} is compressed {1}:1, as zip bombs are</source>
        <translation>其中的部件 {0} 压缩比为 {1}:1，与压缩炸弹相同</translation>
    </message>
    <message>
        <source>it holds {0} parts, more than the {1} allowed</source>
        <translation>它包含 {0} 个部件，超过允许的 {1} 个</translation>
    </message>
    <message>
        <source>its structure is nested too deeply to read</source>
        <translation>其结构嵌套过深，无法读取</translation>
    </message>
    <message>
        <source>it is packed with a compression method or ZIP version that cannot be unpacked ({0})</source>
        <translation>它使用了无法解压的压缩方式或 ZIP 版本（{0}）</translation>
    </message>
    <message>
        <source>this Word (.docx) file is damaged: its list of parts points outside the file</source>
        <translation>这个 Word（.docx）文件已损坏：其部件列表指向了文件之外</translation>
    </message>
    <message>
        <source>tables not read: this PDF&apos;s structure is damaged ({0}); its text was read.</source>
        <translation>表格未读取：这个 PDF 的结构已损坏（{0}）；其文字已读取。</translation>
    </message>
    <message>
        <source>its page count is inconsistent</source>
        <translation>其页数前后不一致</translation>
    </message>
    <message>
        <source>There is nothing to index in it.</source>
        <translation>其中没有可索引的内容。</translation>
    </message>
    <message>
        <source>There is nothing to index; add it again once it has content.</source>
        <translation>没有可索引的内容；等它有内容后再添加。</translation>
    </message>
    <message>
        <source>Check the path, or remove the entry if the file is gone for good.</source>
        <translation>请检查路径；如果文件已永久删除，请移除这一条目。</translation>
    </message>
    <message>
        <source>Add the folder itself to add its files.</source>
        <translation>添加文件夹本身即可添加其中的文件。</translation>
    </message>
    <message>
        <source>Give your user read access to the file and retry.</source>
        <translation>请给当前用户授予该文件的读取权限，然后重试。</translation>
    </message>
    <message>
        <source>Check the disk or network share, then retry.</source>
        <translation>请检查磁盘或网络共享，然后重试。</translation>
    </message>
    <message>
        <source>Supported: text, Markdown, reStructuredText, PDF, DOCX, HTML, CSV and source code.</source>
        <translation>支持：文本、Markdown、reStructuredText、PDF、DOCX、HTML、CSV 和源代码。</translation>
    </message>
    <message>
        <source>Supported: text, Markdown, reStructuredText, PDF, DOCX, HTML, CSV, source code and pictures of text.</source>
        <translation>支持：文本、Markdown、reStructuredText、PDF、DOCX、HTML、CSV、源代码和含文字的图片。</translation>
    </message>
    <message>
        <source>Turn on text recognition (kb.ocr) in Settings, or run OCR on it and add the result.</source>
        <translation>请在设置中打开文字识别（kb.ocr），或先对其做 OCR 再添加结果。</translation>
    </message>
    <message>
        <source>Turn on text recognition (kb.ocr) in Settings to add pictures of text.</source>
        <translation>请在设置中打开文字识别（kb.ocr）以添加含文字的图片。</translation>
    </message>
    <message>
        <source>Open it in an image viewer and save it again, then retry.</source>
        <translation>请用看图软件打开并重新保存，然后重试。</translation>
    </message>
    <message>
        <source>Install the rapidocr and onnxruntime packages, then add the picture again.</source>
        <translation>请安装 rapidocr 和 onnxruntime 软件包，然后重新添加图片。</translation>
    </message>
    <message>
        <source>Save it as .docx (Word: File &gt; Save As) and add that.</source>
        <translation>请另存为 .docx（Word：文件 &gt; 另存为），再添加那个文件。</translation>
    </message>
    <message>
        <source>Save it as .csv and add that.</source>
        <translation>请另存为 .csv，再添加那个文件。</translation>
    </message>
    <message>
        <source>Export it to PDF and add that.</source>
        <translation>请导出为 PDF，再添加那个文件。</translation>
    </message>
    <message>
        <source>Save it as .docx or PDF and add that.</source>
        <translation>请另存为 .docx 或 PDF，再添加那个文件。</translation>
    </message>
    <message>
        <source>Save it as .docx or plain text and add that.</source>
        <translation>请另存为 .docx 或纯文本，再添加那个文件。</translation>
    </message>
    <message>
        <source>Convert it to PDF or HTML and add that.</source>
        <translation>请转换为 PDF 或 HTML，再添加那个文件。</translation>
    </message>
    <message>
        <source>Only text documents can be added; if it is a document, save it as text, PDF or DOCX.</source>
        <translation>只能添加文本类文档；如果它是文档，请另存为文本、PDF 或 DOCX。</translation>
    </message>
    <message>
        <source>Re-save or re-export the PDF, then retry.</source>
        <translation>请重新保存或重新导出这个 PDF，然后重试。</translation>
    </message>
    <message>
        <source>Re-save or re-export the PDF to keep its tables, then add it again.</source>
        <translation>请重新保存或重新导出这个 PDF 以保留其中的表格，然后重新添加。</translation>
    </message>
    <message>
        <source>Run OCR on it (for example with ocrmypdf) and add the result.</source>
        <translation>请先对它做 OCR 文字识别（例如用 ocrmypdf），再添加识别结果。</translation>
    </message>
    <message>
        <source>Remove the password (open it and print or export to a new PDF), then add that file.</source>
        <translation>请去掉密码（打开后打印或导出为新的 PDF），再添加那个文件。</translation>
    </message>
    <message>
        <source>Install it (pip install cryptography) or remove the encryption, then retry.</source>
        <translation>请安装它（pip install cryptography）或去掉加密，然后重试。</translation>
    </message>
    <message>
        <source>Re-download it or re-export it from the program that made it, then retry.</source>
        <translation>请重新下载，或从生成它的程序重新导出，然后重试。</translation>
    </message>
    <message>
        <source>Open it in Word, remove the password (or save as .docx), then add it again.</source>
        <translation>请在 Word 中打开，去掉密码（或另存为 .docx），然后重新添加。</translation>
    </message>
    <message>
        <source>Open and re-save it in Word or LibreOffice, then add it again.</source>
        <translation>请在 Word 或 LibreOffice 中打开并重新保存，然后重新添加。</translation>
    </message>
    <message>
        <source>Split it into smaller files, or raise &apos;Largest file&apos; (kb.max_file_mb) in the settings.</source>
        <translation>请把它拆分成较小的文件，或在设置中调高“最大文件”（kb.max_file_mb）。</translation>
    </message>
    <message>
        <source>The file may be damaged or unusually complex; it is not retried until it changes. Raise &apos;Time to read one file&apos; (kb.read_timeout_seconds) in the settings and add it again to retry.</source>
        <translation>该文件可能已损坏或异常复杂；在它改变之前不会重试。可在设置中调高“读取单个文件的时限”（kb.read_timeout_seconds）后重新添加以重试。</translation>
    </message>
    <message>
        <source>Split the file, or raise &apos;Memory to read one file&apos; (kb.read_memory_mb) in the settings and add it again.</source>
        <translation>请拆分该文件，或在设置中调高“读取单个文件的内存”（kb.read_memory_mb）后重新添加。</translation>
    </message>
    <message>
        <source>The file is not retried until it changes; if it opens in other programs, re-save it and add it again.</source>
        <translation>在该文件改变之前不会重试；如果它能在其他程序中打开，请重新保存后再添加。</translation>
    </message>
    <message>
        <source>It is not retried until it changes; remove it and add it again to retry.</source>
        <translation>在它改变之前不会重试；如需重试，请将其移除后重新添加。</translation>
    </message>
    <message>
        <source>It is refused before anything is unpacked; if it is a genuine document, re-save it in Word.</source>
        <translation>它在解压任何内容之前即被拒绝；如果它是正常文档，请在 Word 中重新保存。</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
</context>
<context>
    <name>DocumentTable</name>
    <message>
        <source>Document</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Pages</source>
        <translation>页数</translation>
    </message>
    <message>
        <source>Chunks</source>
        <translation>文本块</translation>
    </message>
    <message>
        <source>Documents in the knowledge base</source>
        <translation>知识库中的文档</translation>
    </message>
</context>
<context>
    <name>DownloadBox</name>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Download from the Hugging Face hub; the file is checked against its published checksum</source>
        <translation>从 Hugging Face Hub 下载；文件会按其公布的校验和进行核对</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the download and delete the part downloaded so far</source>
        <translation>停止下载并删除已下载的部分</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation>使用此模型</translation>
    </message>
    <message>
        <source>Download progress</source>
        <translation>下载进度</translation>
    </message>
    <message>
        <source>Choose a model variant to download or use it.</source>
        <translation>请选择一个模型版本来下载或使用。</translation>
    </message>
    <message>
        <source>Not on this computer yet.</source>
        <translation>本机上还没有此模型。</translation>
    </message>
    <message>
        <source>Its publisher asks you to accept a licence on the hub first (set HF_TOKEN to your access token).</source>
        <translation>发布者要求先在 Hub 上同意许可协议（请把 HF_TOKEN 设为你的访问令牌）。</translation>
    </message>
    <message>
        <source>On this computer: it runs without the internet.</source>
        <translation>已在本机：无需联网即可运行。</translation>
    </message>
</context>
<context>
    <name>EmbeddingChoice</name>
    <message>
        <source>Using {0} (English only) until {1} is downloaded; chosen because {2}.</source>
        <translation>在 {1} 下载完成之前使用 {0}（仅英文）；选择理由：{2}。</translation>
    </message>
    <message>
        <source>Using {0}: {1}.</source>
        <translation>正在使用 {0}：{1}。</translation>
    </message>
    <message>
        <source>{0} {1}</source>
        <translation>{0}{1}</translation>
    </message>
    <message>
        <source>it is set in Settings (kb.embedding_model)</source>
        <translation>已在设置中指定（kb.embedding_model）</translation>
    </message>
    <message>
        <source>a GPU with {0} GiB: Qwen3-Embedding-0.6B, the strongest multilingual model that fits beside a chat model (MMTEB 64.3)</source>
        <translation>GPU 显存 {0} GiB：Qwen3-Embedding-0.6B，能与对话模型同时放下的最强多语言模型（MMTEB 64.3）</translation>
    </message>
    <message>
        <source>a GPU with {0} GiB: bge-m3, a strong multilingual model (MMTEB 59.6)</source>
        <translation>GPU 显存 {0} GiB：bge-m3，较强的多语言模型（MMTEB 59.6）</translation>
    </message>
    <message>
        <source>no GPU with room for a larger model: multilingual-e5-small, fast on a CPU and trained for Chinese, English and 100 other languages</source>
        <translation>没有能放下更大模型的 GPU：multilingual-e5-small，在 CPU 上速度快，支持中文、英文等 100 多种语言</translation>
    </message>
</context>
<context>
    <name>EmbeddingModelView</name>
    <message>
        <source>Preparing the download of %1…</source>
        <translation>正在准备下载 %1…</translation>
    </message>
    <message>
        <source>Downloading %1: %2</source>
        <translation>正在下载 %1：%2</translation>
    </message>
    <message>
        <source>Downloaded; the knowledge base is re-embedded in the background (search keeps working meanwhile).</source>
        <translation>已下载；知识库正在后台重新生成向量（期间搜索照常可用）。</translation>
    </message>
    <message>
        <source>The download failed: %1</source>
        <translation>下载失败：%1</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Download the multilingual embedding model chosen for this computer (once; then everything runs offline)</source>
        <translation>下载为本机选择的多语言嵌入模型（只需一次，之后完全离线运行）</translation>
    </message>
</context>
<context>
    <name>EngineLoad</name>
    <message>
        <source>llama.cpp failed to load the model: {0}</source>
        <translation>llama.cpp 无法加载该模型：{0}</translation>
    </message>
    <message>
        <source>See the log file for details.</source>
        <translation>详情请查看日志文件。</translation>
    </message>
    <message>
        <source>llama.cpp engine setup failed: {0}</source>
        <translation>llama.cpp 引擎设置失败：{0}</translation>
    </message>
    <message>
        <source>The chat request has no messages.</source>
        <translation>对话请求中没有消息。</translation>
    </message>
    <message>
        <source>Send at least one message.</source>
        <translation>请至少发送一条消息。</translation>
    </message>
    <message>
        <source>The prompt is {0} tokens long, but a chat&apos;s context holds only {1} tokens.</source>
        <translation>提示长 {0} 个词元，但一个对话的上下文只能容纳 {1} 个词元。</translation>
    </message>
    <message>
        <source>Shorten the conversation or raise the context length in Settings.</source>
        <translation>请缩短对话，或在设置中提高上下文长度。</translation>
    </message>
    <message>
        <source>Model file not found: {0}</source>
        <translation>找不到模型文件：{0}</translation>
    </message>
    <message>
        <source>Check the path or choose another model.</source>
        <translation>请检查路径或选择其他模型。</translation>
    </message>
    <message>
        <source>Not a model file: {0} is a folder.</source>
        <translation>不是模型文件：{0} 是一个文件夹。</translation>
    </message>
    <message>
        <source>Choose a .gguf file.</source>
        <translation>请选择 .gguf 文件。</translation>
    </message>
    <message>
        <source>{0} is empty.</source>
        <translation>{0} 是空的。</translation>
    </message>
    <message>
        <source>{0} is not a GGUF model.</source>
        <translation>{0} 不是 GGUF 模型。</translation>
    </message>
    <message>
        <source>Choose a .gguf model file (llama.cpp format).</source>
        <translation>请选择 .gguf 模型文件（llama.cpp 格式）。</translation>
    </message>
    <message>
        <source>This llama.cpp build does not support the model&apos;s architecture ({0}).</source>
        <translation>此 llama.cpp 版本不支持该模型的架构（{0}）。</translation>
    </message>
    <message>
        <source>Update UniDesk (a newer llama.cpp may support it) or choose another model.</source>
        <translation>请更新 UniDesk（较新的 llama.cpp 可能支持），或选择其他模型。</translation>
    </message>
    <message>
        <source>Not enough memory to load {0}.</source>
        <translation>内存不足，无法加载 {0}。</translation>
    </message>
    <message>
        <source>Choose a smaller model or quantization, or offload fewer layers to the GPU.</source>
        <translation>请选择更小的模型或量化版本，或把更少的层放到 GPU 上。</translation>
    </message>
    <message>
        <source>{0} is damaged or incomplete ({1}).</source>
        <translation>{0} 已损坏或不完整（{1}）。</translation>
    </message>
    <message>
        <source>Download the model again.</source>
        <translation>请重新下载该模型。</translation>
    </message>
    <message>
        <source>llama.cpp could not load {0}: {1}.</source>
        <translation>llama.cpp 无法加载 {0}：{1}。</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>未知错误</translation>
    </message>
    <message>
        <source>The {0} KV cache does not fit this model&apos;s head size ({1}).</source>
        <translation>{0} 类型的 KV 缓存与该模型的注意力头大小不匹配（{1}）。</translation>
    </message>
    <message>
        <source>Use an f16 KV cache for this model.</source>
        <translation>请为该模型使用 f16 类型的 KV 缓存。</translation>
    </message>
    <message>
        <source>A {0} KV cache needs flash attention, which is off or unsupported.</source>
        <translation>{0} 类型的 KV 缓存需要 Flash Attention，但它已关闭或不受支持。</translation>
    </message>
    <message>
        <source>Set flash attention to auto or on, or use an f16 KV cache.</source>
        <translation>请把 Flash Attention 设为自动或开启，或使用 f16 类型的 KV 缓存。</translation>
    </message>
    <message>
        <source>Not enough memory for the KV cache of {0} chat(s) of {1} tokens.</source>
        <translation>内存不足，放不下 {0} 个对话、每个 {1} 词元的 KV 缓存。</translation>
    </message>
    <message>
        <source>Lower the context length or the number of parallel chats, or use a quantized KV cache.</source>
        <translation>请降低上下文长度或并行对话数，或使用量化的 KV 缓存。</translation>
    </message>
    <message>
        <source>Unknown KV cache type {0} for llama.cpp.</source>
        <translation>llama.cpp 不认识 KV 缓存类型 {0}。</translation>
    </message>
    <message>
        <source>Choose one of: {0}.</source>
        <translation>请从以下选项中选择：{0}。</translation>
    </message>
    <message>
        <source>A {0} KV cache needs flash attention, but it is set to off.</source>
        <translation>{0} 类型的 KV 缓存需要 Flash Attention，但它被设为关闭。</translation>
    </message>
    <message>
        <source>Loading weights</source>
        <translation>正在加载权重</translation>
    </message>
    <message>
        <source>Allocating the KV cache</source>
        <translation>正在分配 KV 缓存</translation>
    </message>
    <message>
        <source>This llama.cpp build has no GPU offload; running on the CPU.</source>
        <translation>此 llama.cpp 构建不支持 GPU 卸载；在 CPU 上运行。</translation>
    </message>
    <message>
        <source>GPU layers: {0}</source>
        <translation>GPU 层数：{0}</translation>
    </message>
    <message>
        <source>GPU layers: all</source>
        <translation>GPU 层数：全部</translation>
    </message>
    <message>
        <source>Flash attention: enabled</source>
        <translation>Flash Attention：已启用</translation>
    </message>
    <message>
        <source>Flash attention: disabled</source>
        <translation>Flash Attention：已关闭</translation>
    </message>
    <message>
        <source>Flash attention: unknown</source>
        <translation>Flash Attention：未知</translation>
    </message>
    <message>
        <source>KV cache: {0}, {1} stream(s) of {2} cells</source>
        <translation>KV 缓存：{0}，{1} 个流，每个 {2} 个单元</translation>
    </message>
    <message>
        <source>Threads: {0}</source>
        <translation>线程数：{0}</translation>
    </message>
    <message>
        <source>Sampling: inside llama.cpp&apos;s compute graph</source>
        <translation>采样：在 llama.cpp 的计算图内进行</translation>
    </message>
    <message>
        <source>Warming up</source>
        <translation>正在预热</translation>
    </message>
    <message>
        <source>Load the model again.</source>
        <translation>请重新加载模型。</translation>
    </message>
    <message>
        <source>The llama.cpp engine has stopped.</source>
        <translation>llama.cpp 引擎已停止。</translation>
    </message>
    <message>
        <source>The {0} engine is not available in this version of UniDesk.</source>
        <translation>此版本的 UniDesk 中没有 {0} 引擎。</translation>
    </message>
    <message>
        <source>Out of memory with {0} tokens × {1} chats; retried with a smaller setting.</source>
        <translation>{0} 词元 × {1} 个对话时内存不足；已改用更小的设置重试。</translation>
    </message>
    <message>
        <source>Connecting to {0}</source>
        <translation>正在连接 {0}</translation>
    </message>
    <message>
        <source>Connected to {0}</source>
        <translation>已连接到 {0}</translation>
    </message>
    <message>
        <source>Remote server {0}</source>
        <translation>远程服务器 {0}</translation>
    </message>
    <message>
        <source>The server allows {0} tokens per chat.</source>
        <translation>服务器允许每个对话 {0} 个词元。</translation>
    </message>
    <message>
        <source>The server cannot count tokens; token counts are estimates.</source>
        <translation>服务器无法计数词元；词元数为估计值。</translation>
    </message>
    <message>
        <source>The server at {0} serves no models.</source>
        <translation>{0} 上的服务器没有提供任何模型。</translation>
    </message>
    <message>
        <source>Start the server with a model.</source>
        <translation>请启动服务器时加载一个模型。</translation>
    </message>
    <message>
        <source>The server at {0} does not serve the model &apos;{1}&apos;.</source>
        <translation>{0} 上的服务器没有提供模型“{1}”。</translation>
    </message>
    <message>
        <source>Choose one it serves: {0}.</source>
        <translation>请选择它提供的模型之一：{0}。</translation>
    </message>
    <message>
        <source>The remote request failed: {0}</source>
        <translation>远程请求失败：{0}</translation>
    </message>
    <message>
        <source>Use an address like http://192.168.1.20:8000/v1.</source>
        <translation>请使用类似 http://192.168.1.20:8000/v1 的地址。</translation>
    </message>
    <message>
        <source>No remote server address is set.</source>
        <translation>尚未设置远程服务器地址。</translation>
    </message>
    <message>
        <source>Enter it in Settings &gt; Engine &gt; Remote server address.</source>
        <translation>请在“设置 &gt; 引擎 &gt; 远程服务器地址”中填写。</translation>
    </message>
    <message>
        <source>&apos;{0}&apos; is not a server address.</source>
        <translation>“{0}”不是服务器地址。</translation>
    </message>
    <message>
        <source>&apos;{0}&apos; has an invalid port.</source>
        <translation>“{0}”的端口无效。</translation>
    </message>
    <message>
        <source>The server at {0} refused the API key (HTTP {1}){2}.</source>
        <translation>{0} 上的服务器拒绝了 API 密钥（HTTP {1}）{2}。</translation>
    </message>
    <message>
        <source>Check the Remote API key in Settings &gt; Engine.</source>
        <translation>请检查“设置 &gt; 引擎”中的“远程 API 密钥”。</translation>
    </message>
    <message>
        <source>The server at {0} has no {1} (HTTP 404){2}.</source>
        <translation>{0} 上的服务器没有 {1}（HTTP 404）{2}。</translation>
    </message>
    <message>
        <source>Check the model name, and that the address ends in the API&apos;s base path (usually /v1).</source>
        <translation>请检查模型名称，以及地址是否以 API 的基础路径结尾（通常是 /v1）。</translation>
    </message>
    <message>
        <source>The server at {0} answered HTTP {1} to {2}{3}.</source>
        <translation>{0} 上的服务器对 {2} 返回了 HTTP {1}{3}。</translation>
    </message>
    <message>
        <source>Try again; if it keeps failing, check the server&apos;s log.</source>
        <translation>请重试；如果一直失败，请查看服务器日志。</translation>
    </message>
    <message>
        <source>the name {0} cannot be resolved</source>
        <translation>无法解析主机名 {0}</translation>
    </message>
    <message>
        <source>nothing is listening there (connection refused)</source>
        <translation>该地址没有服务在监听（连接被拒绝）</translation>
    </message>
    <message>
        <source>it did not answer in time</source>
        <translation>它没有及时应答</translation>
    </message>
    <message>
        <source>the TLS handshake failed ({0})</source>
        <translation>TLS 握手失败（{0}）</translation>
    </message>
    <message>
        <source>Cannot reach the server at {0}: {1}.</source>
        <translation>无法连接 {0} 上的服务器：{1}。</translation>
    </message>
    <message>
        <source>Check the Remote server address in settings and that the server is running.</source>
        <translation>请检查设置中的远程服务器地址，并确认服务器正在运行。</translation>
    </message>
    <message>
        <source>The server at {0} did not answer {1} with JSON.</source>
        <translation>{0} 上的服务器没有用 JSON 应答 {1}。</translation>
    </message>
    <message>
        <source>Check that the address points to an OpenAI-compatible API (usually ending in /v1).</source>
        <translation>请确认地址指向兼容 OpenAI 的 API（通常以 /v1 结尾）。</translation>
    </message>
    <message>
        <source>vLLM is not installed.</source>
        <translation>未安装 vLLM。</translation>
    </message>
    <message>
        <source>Install UniDesk&apos;s vllm extra, or use a GGUF model with llama.cpp.</source>
        <translation>请安装 UniDesk 的 vllm 扩展，或用 llama.cpp 运行 GGUF 模型。</translation>
    </message>
    <message>
        <source>Starting vLLM</source>
        <translation>正在启动 vLLM</translation>
    </message>
    <message>
        <source>vLLM is ready</source>
        <translation>vLLM 已就绪</translation>
    </message>
    <message>
        <source>vLLM {0} backend, KV cache of {1} tokens</source>
        <translation>vLLM {0} 后端，KV 缓存可容纳 {1} 个词元</translation>
    </message>
    <message>
        <source>KV cache sized in bytes: {0:.2f} GiB, as planned</source>
        <translation>KV 缓存按字节设定：{0:.2f} GiB，与规划一致</translation>
    </message>
    <message>
        <source>GPU memory utilisation {0:.3f}</source>
        <translation>显存使用比例 {0:.3f}</translation>
    </message>
    <message>
        <source>The vLLM engine stopped working ({0}).</source>
        <translation>vLLM 引擎已停止工作（{0}）。</translation>
    </message>
    <message>
        <source>Load the model again (a smaller context or fewer parallel chats if memory ran out); your conversation is kept.</source>
        <translation>请重新加载模型（如果内存不足，请缩短上下文或减少并行对话）；您的对话会保留。</translation>
    </message>
    <message>
        <source>The model&apos;s chat template failed: {0}</source>
        <translation>模型的对话模板出错：{0}</translation>
    </message>
    <message>
        <source>Check the order of roles (some models need user and assistant to alternate).</source>
        <translation>请检查角色顺序（有些模型要求用户和助手交替发言）。</translation>
    </message>
    <message>
        <source>vLLM ran out of memory loading {0}: {1}.</source>
        <translation>vLLM 加载 {0} 时内存不足：{1}。</translation>
    </message>
    <message>
        <source>vLLM cannot load {0}: {1}.</source>
        <translation>vLLM 无法加载 {0}：{1}。</translation>
    </message>
    <message>
        <source>vLLM failed to start with {0}: {1}.</source>
        <translation>vLLM 无法用 {0} 启动：{1}。</translation>
    </message>
    <message>
        <source>Use a shorter context or fewer parallel chats, or close other programs.</source>
        <translation>请缩短上下文或减少并行对话，或关闭其他程序。</translation>
    </message>
    <message>
        <source>Choose a Hugging Face model folder (config.json and safetensors weights).</source>
        <translation>请选择 Hugging Face 模型文件夹（含 config.json 和 safetensors 权重）。</translation>
    </message>
    <message>
        <source>See the log for vLLM&apos;s own message.</source>
        <translation>vLLM 自己的消息请查看日志。</translation>
    </message>
    <message>
        <source>Speculative decoding with a draft model needs a draft model.</source>
        <translation>使用草稿模型的推测解码需要指定草稿模型。</translation>
    </message>
    <message>
        <source>Choose one in Settings &gt; Engine &gt; Draft model, or set speculative decoding to n-gram or off.</source>
        <translation>请在“设置 &gt; 引擎 &gt; 草稿模型”中选择一个，或把推测解码设为 n-gram 或关闭。</translation>
    </message>
    <message>
        <source>Unknown speculative decoding mode &apos;{0}&apos;.</source>
        <translation>未知的推测解码模式“{0}”。</translation>
    </message>
    <message>
        <source>Use off, ngram or draft.</source>
        <translation>请使用 off、ngram 或 draft。</translation>
    </message>
    <message>
        <source>The model with a {0} KV cache</source>
        <translation>模型连同 {0} 的 KV 缓存</translation>
    </message>
    <message>
        <source>{0} would claim {1} of GPU memory, but only {2} of {3} is free and {4} must stay free.</source>
        <translation>{0}将占用 {1} 显存，但 {3} 中只有 {2} 空闲，且必须保留 {4} 空闲。</translation>
    </message>
    <message>
        <source>{0} would take {1} of the shared memory pool ({2} available of {3}), leaving {4} for the system and your other programs; at least {5} must stay free.</source>
        <translation>{0}将占用共享内存池中的 {1}（共 {3}，可用 {2}），只给系统和其他程序留下 {4}；至少必须保留 {5} 空闲。</translation>
    </message>
    <message>
        <source>{0} would take {1} of memory ({2} available of {3}), leaving {4} for the system and your other programs; at least {5} must stay free.</source>
        <translation>{0}将占用 {1} 内存（共 {3}，可用 {2}），只给系统和其他程序留下 {4}；至少必须保留 {5} 空闲。</translation>
    </message>
    <message>
        <source>Set Memory utilisation to {0:.3f} or less (Automatic picks a safe value), or use a shorter context or fewer parallel chats, or close other programs.</source>
        <translation>请把“内存使用比例”设为 {0:.3f} 或更低（“自动”会选择安全的值），或缩短上下文、减少并行对话，或关闭其他程序。</translation>
    </message>
    <message>
        <source>Close other programs, choose a smaller model, or use a shorter context or fewer parallel chats.</source>
        <translation>请关闭其他程序、选择更小的模型，或缩短上下文、减少并行对话。</translation>
    </message>
    <message>
        <source>Loading the engine</source>
        <translation>加载引擎</translation>
    </message>
    <message>
        <source>Memory utilisation {0:.3f}</source>
        <translation>内存使用比例 {0:.3f}</translation>
    </message>
    <message>
        <source>The server reported an error: {0}</source>
        <translation>服务器报告了错误：{0}</translation>
    </message>
    <message>
        <source>The connection to the server at {0} was lost during the answer ({1}).</source>
        <translation>回答过程中与 {0} 上服务器的连接中断了（{1}）。</translation>
    </message>
    <message>
        <source>The text so far is kept; send the message again when the server is back.</source>
        <translation>已生成的文字会保留；服务器恢复后请重新发送消息。</translation>
    </message>
    <message>
        <source>The vLLM engine stopped working (its engine process died, for example out of memory).</source>
        <translation>vLLM 引擎已停止工作（其引擎进程已退出，例如因内存不足）。</translation>
    </message>
    <message>
        <source>The text so far is kept; load the model again (a smaller context or fewer parallel chats if memory ran out) and send the message again.</source>
        <translation>已生成的文字会保留；请重新加载模型（如果内存不足，请缩短上下文或减少并行对话），然后重新发送消息。</translation>
    </message>
    <message>
        <source>vLLM could not answer: {0}</source>
        <translation>vLLM 无法回答：{0}</translation>
    </message>
    <message>
        <source>Try again, or reload the model.</source>
        <translation>请重试，或重新加载模型。</translation>
    </message>
    <message>
        <source>The model&apos;s chat template rejected the conversation: {0}</source>
        <translation>模型的对话模板拒绝了这段对话：{0}</translation>
    </message>
    <message>
        <source>The model file&apos;s template may be broken; try another build of the model.</source>
        <translation>模型文件中的模板可能已损坏；请尝试该模型的其他构建版本。</translation>
    </message>
    <message>
        <source>The llama.cpp engine stopped: {0}</source>
        <translation>llama.cpp 引擎已停止：{0}</translation>
    </message>
    <message>
        <source>llama.cpp failed to decode (code {0}).</source>
        <translation>llama.cpp 解码失败（代码 {0}）。</translation>
    </message>
    <message>
        <source>Try again with a shorter chat.</source>
        <translation>请用较短的对话重试。</translation>
    </message>
    <message>
        <source>The model has no usable chat template and no known chat tokens; using plain User:/Assistant: turns.</source>
        <translation>模型没有可用的对话模板，也没有已知的对话词元；改用纯文本的 User:/Assistant: 轮次。</translation>
    </message>
    <message>
        <source>The model has no usable chat template; using the {0} format, which its special tokens suggest.</source>
        <translation>模型没有可用的对话模板；改用其特殊词元所对应的 {0} 格式。</translation>
    </message>
</context>
<context>
    <name>FirstRunPage</name>
    <message>
        <source>Choose a language model</source>
        <translation>选择一个语言模型</translation>
    </message>
    <message>
        <source>UniDesk answers with a language model that runs on this computer. There is none here yet: pick one from the catalog (each is marked by whether it fits this machine), or use a model file you already have.</source>
        <translation>UniDesk 用在本机上运行的语言模型来回答。这里还没有模型：请从目录中挑选一个（每个都标明了是否适合本机），或使用你已有的模型文件。</translation>
    </message>
    <message>
        <source>Nothing you type, ask or add leaves this machine. Only the model download itself comes from the internet (from the Hugging Face hub, a mirror or ModelScope: Settings &gt; Download source).</source>
        <translation>你输入、提问或添加的任何内容都不会离开本机。只有下载模型本身需要联网（来自 Hugging Face、镜像站或 ModelScope：设置 &gt; 下载来源）。</translation>
    </message>
    <message>
        <source>Once a model is on this computer, UniDesk works offline.</source>
        <translation>模型下载到本机后，UniDesk 即可离线使用。</translation>
    </message>
    <message>
        <source>Browse the catalog</source>
        <translation>浏览模型目录</translation>
    </message>
    <message>
        <source>Use a model file I have…</source>
        <translation>使用我已有的模型文件…</translation>
    </message>
    <message>
        <source>Recommended for this computer: {0}</source>
        <translation>推荐这台电脑使用：{0}</translation>
    </message>
    <message>
        <source>Downloading it also fetches the multilingual model that searches your documents (the knowledge panel shows its progress).</source>
        <translation>下载它时也会一并下载用于搜索你文档的多语言模型（进度显示在知识库面板中）。</translation>
    </message>
</context>
<context>
    <name>Gauges</name>
    <message>
        <source>UniDesk</source>
        <translation>UniDesk</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>KV cache in use</source>
        <translation>KV 缓存（已用）</translation>
    </message>
    <message>
        <source>KV cache reserved</source>
        <translation>KV 缓存（预留）</translation>
    </message>
    <message>
        <source>Compute buffers</source>
        <translation>计算缓冲区</translation>
    </message>
    <message>
        <source>Runtime</source>
        <translation>运行时</translation>
    </message>
    <message>
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <source>Other programs</source>
        <translation>其他程序</translation>
    </message>
    <message>
        <source>Page cache</source>
        <translation>页面缓存</translation>
    </message>
    <message>
        <source>Free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Files the system keeps in memory: reclaimable, so counted as free</source>
        <translation>系统缓存在内存中的文件：可回收，因此计为空闲</translation>
    </message>
    <message>
        <source>System memory</source>
        <translation>系统内存</translation>
    </message>
    <message>
        <source>Unified memory (CPU and GPU share it)</source>
        <translation>统一内存（CPU 与 GPU 共享）</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>{0} tok/s</source>
        <translation>{0} 词元/秒</translation>
    </message>
    <message>
        <source>{0} KiB</source>
        <translation>{0} KiB</translation>
    </message>
    <message>
        <source>{0} MiB</source>
        <translation>{0} MiB</translation>
    </message>
    <message>
        <source>{0:.1f} GiB</source>
        <translation>{0:.1f} GiB</translation>
    </message>
</context>
<context>
    <name>GaugesPanel</name>
    <message>
        <source>Gauges</source>
        <translation>仪表</translation>
    </message>
</context>
<context>
    <name>HardwareEvidence</name>
    <message>
        <source>Jetson device tree: {0} lists {1}</source>
        <translation>Jetson 设备树：{0} 列出了 {1}</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <source>{0} present (Jetson Linux: {1})</source>
        <translation>存在 {0}（Jetson Linux：{1}）</translation>
    </message>
    <message>
        <source>Grace CPU: {0} is {1} (NVIDIA Grace)</source>
        <translation>Grace CPU：{0} 为 {1}（NVIDIA Grace）</translation>
    </message>
    <message>
        <source>{0} cores on {1} in {2} (the core of NVIDIA Grace)</source>
        <translation>{2} 显示 {1} 上有 {0} 核心（NVIDIA Grace 的核心）</translation>
    </message>
</context>
<context>
    <name>HelpMenu</name>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About UniDesk</source>
        <translation>关于 UniDesk(&amp;A)</translation>
    </message>
    <message>
        <source>Open the &amp;log folder</source>
        <translation>打开日志文件夹(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Copy a diagnostic report</source>
        <translation>复制诊断报告(&amp;C)</translation>
    </message>
    <message>
        <source>Machine, settings without secrets and the last log lines, for a bug report</source>
        <translation>本机信息、设置（不含密钥）和最近的日志，用于报告问题</translation>
    </message>
    <message>
        <source>A private AI assistant: models and documents stay on this machine.</source>
        <translation>私人 AI 助手：模型和文档都留在这台电脑上。</translation>
    </message>
    <message>
        <source>UniDesk is licensed under Apache-2.0. It is built from:</source>
        <translation>UniDesk 以 Apache-2.0 许可发布，使用了以下组件：</translation>
    </message>
    <message>
        <source>About UniDesk</source>
        <translation>关于 UniDesk</translation>
    </message>
    <message>
        <source>Log folder</source>
        <translation>日志文件夹</translation>
    </message>
    <message>
        <source>This system has no file manager to open it. The log is in:
{0}</source>
        <translation>系统中没有可以打开它的文件管理器。日志位于：
{0}</translation>
    </message>
    <message>
        <source>A diagnostic report is on the clipboard: paste it into your bug report.</source>
        <translation>诊断报告已复制到剪贴板：请粘贴到你的问题报告中。</translation>
    </message>
</context>
<context>
    <name>HomeLock</name>
    <message>
        <source>The UniDesk window (process {0}) is using the data in {1}.</source>
        <translation>UniDesk 窗口（进程 {0}）正在使用 {1} 中的数据。</translation>
    </message>
    <message>
        <source>Do this in the window (the local API is Settings &gt; Local API), or close the window and run the command again.</source>
        <translation>请在窗口中完成此操作（本地 API 位于“设置 &gt; 本地 API”），或关闭窗口后再运行此命令。</translation>
    </message>
    <message>
        <source>`unidesk {0}` (process {1}) is using the data in {2}.</source>
        <translation>`unidesk {0}`（进程 {1}）正在使用 {2} 中的数据。</translation>
    </message>
    <message>
        <source>Wait for it to finish or stop it, then try again.</source>
        <translation>请等它完成或将其停止，然后重试。</translation>
    </message>
    <message>
        <source>Another UniDesk process is using the data in {0}.</source>
        <translation>另一个 UniDesk 进程正在使用 {0} 中的数据。</translation>
    </message>
    <message>
        <source>Close it, then try again.</source>
        <translation>请关闭它，然后重试。</translation>
    </message>
</context>
<context>
    <name>IndexingProgressView</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop indexing; documents already indexed are kept</source>
        <translation>停止索引；已索引的文档会保留</translation>
    </message>
    <message>
        <source>Cancel indexing</source>
        <translation>取消索引</translation>
    </message>
    <message>
        <source>Indexing progress</source>
        <translation>索引进度</translation>
    </message>
    <message>
        <source>%v of %m</source>
        <translation>%v / %m</translation>
    </message>
    <message>
        <source>Cancelling after the current batch…</source>
        <translation>当前批次完成后取消…</translation>
    </message>
    <message>
        <source>{0} (text recognition: page {1} of {2})</source>
        <translation>{0}（文字识别：第 {1} 页，共 {2} 页）</translation>
    </message>
</context>
<context>
    <name>KnowledgeBaseErrors</name>
    <message>
        <source>The knowledge-base database {0} cannot be opened: {1}.</source>
        <translation>无法打开知识库数据库 {0}：{1}。</translation>
    </message>
    <message>
        <source>Move the file away to start an empty knowledge base, or restore it from a backup.</source>
        <translation>请把该文件移走以新建空的知识库，或从备份恢复它。</translation>
    </message>
    <message>
        <source>The knowledge base {0} was written by a newer UniDesk (schema {1}, this one knows {2}).</source>
        <translation>知识库 {0} 由更新版本的 UniDesk 写入（结构版本 {1}，本版本只认识 {2}）。</translation>
    </message>
    <message>
        <source>Update UniDesk to use it.</source>
        <translation>请更新 UniDesk 后再使用它。</translation>
    </message>
    <message>
        <source>No embedding model is set.</source>
        <translation>未设置嵌入模型。</translation>
    </message>
    <message>
        <source>Set kb.embedding_model, e.g. all-MiniLM-L6-v2.</source>
        <translation>请设置 kb.embedding_model，例如 all-MiniLM-L6-v2。</translation>
    </message>
    <message>
        <source>The embedding model {0} is not available on this computer ({1}).</source>
        <translation>本机上没有嵌入模型 {0}（{1}）。</translation>
    </message>
    <message>
        <source>Choose all-MiniLM-L6-v2 (bundled) or a local model folder in kb.embedding_model.</source>
        <translation>请在 kb.embedding_model 中选择 all-MiniLM-L6-v2（随附）或本地模型文件夹。</translation>
    </message>
    <message>
        <source>There is no document {0} in the knowledge base.</source>
        <translation>知识库中没有文档 {0}。</translation>
    </message>
    <message>
        <source>See `unidesk kb list`.</source>
        <translation>请查看 `unidesk kb list`。</translation>
    </message>
    <message>
        <source>The number of passages must be at least 1, not {0}.</source>
        <translation>段落数至少为 1，不能是 {0}。</translation>
    </message>
    <message>
        <source>The vector store in {0} cannot be opened: {1}.</source>
        <translation>无法打开 {0} 中的向量库：{1}。</translation>
    </message>
    <message>
        <source>Close other UniDesk windows using the same folder, or remove the folder to rebuild it.</source>
        <translation>请关闭使用同一文件夹的其他 UniDesk 窗口，或删除该文件夹以重建。</translation>
    </message>
    <message>
        <source>kb.chroma_server_url {0} is not an http(s) address.</source>
        <translation>kb.chroma_server_url {0} 不是 http(s) 地址。</translation>
    </message>
    <message>
        <source>Use e.g. http://192.168.1.20:8000, or leave it empty for the built-in store.</source>
        <translation>请使用例如 http://192.168.1.20:8000 的地址，或留空以使用内置存储。</translation>
    </message>
    <message>
        <source>The chromadb server at {0} does not answer ({1}).</source>
        <translation>位于 {0} 的 chromadb 服务器没有响应（{1}）。</translation>
    </message>
    <message>
        <source>Start it (chroma run --path DIR) or clear kb.chroma_server_url to use the built-in store.</source>
        <translation>请启动它（chroma run --path DIR），或清空 kb.chroma_server_url 以使用内置存储。</translation>
    </message>
    <message>
        <source>The vector collection {0} cannot be opened: {1}.</source>
        <translation>无法打开向量集合 {0}：{1}。</translation>
    </message>
    <message>
        <source>The vector collection {0} cannot be deleted: {1}.</source>
        <translation>无法删除向量集合 {0}：{1}。</translation>
    </message>
    <message>
        <source>There are no indexed passages to check.</source>
        <translation>没有已索引的段落可供检查。</translation>
    </message>
    <message>
        <source>Add documents first: unidesk kb add PATH...</source>
        <translation>请先添加文档：unidesk kb add PATH...</translation>
    </message>
    <message>
        <source>The process running the model {0} stopped unexpectedly, twice in a row ({1}).</source>
        <translation>运行模型 {0} 的进程意外停止，已连续两次（{1}）。</translation>
    </message>
    <message>
        <source>Try again; if it happens again, choose another model in kb.embedding_model or send the log (Help menu) with a report.</source>
        <translation>请重试；如果再次发生，请在 kb.embedding_model 中选择其他模型，或通过“帮助”菜单发送日志和问题报告。</translation>
    </message>
</context>
<context>
    <name>KnowledgeBasePanel</name>
    <message>
        <source>Knowledge base</source>
        <translation>知识库</translation>
    </message>
    <message>
        <source>Drop files or folders here (or onto the chat), or use the buttons. Documents are read and indexed on this computer; nothing is uploaded.</source>
        <translation>把文件或文件夹拖到这里（或拖到对话中），或使用上面的按钮。文档在本机上读取和索引，不会上传任何内容。</translation>
    </message>
    <message>
        <source>Add files…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <source>Add documents: text, Markdown, PDF, Word, web pages, code</source>
        <translation>添加文档：文本、Markdown、PDF、Word、网页、代码</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Add every document in a folder and keep it up to date</source>
        <translation>添加文件夹中的所有文档并保持同步</translation>
    </message>
    <message>
        <source>Re-index</source>
        <translation>重新索引</translation>
    </message>
    <message>
        <source>Read the selected documents again</source>
        <translation>重新读取所选文档</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove the selected documents from the knowledge base (the files stay)</source>
        <translation>从知识库中移除所选文档（文件本身保留）</translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <source>Open the folder of the selected document in the file manager</source>
        <translation>在文件管理器中打开所选文档所在的文件夹</translation>
    </message>
    <message>
        <source>The knowledge base cannot be used: {0}</source>
        <translation>无法使用知识库：{0}</translation>
    </message>
    <message>
        <source>Add documents</source>
        <translation>添加文档</translation>
    </message>
    <message>
        <source>Add a folder</source>
        <translation>添加文件夹</translation>
    </message>
    <message>
        <source>Remove documents</source>
        <translation>移除文档</translation>
    </message>
    <message>
        <source>Remove {0} document(s) from the knowledge base? The files themselves are not deleted.</source>
        <translation>从知识库中移除 {0} 个文档？文件本身不会被删除。</translation>
    </message>
    <message>
        <source>{0} pages · {1} chunks</source>
        <translation>{0} 页 · {1} 个文本块</translation>
    </message>
    <message>
        <source>Read in part: {0}</source>
        <translation>部分读取：{0}</translation>
    </message>
    <message>
        <source>Not indexed: {0}.</source>
        <translation>未索引：{0}。</translation>
    </message>
</context>
<context>
    <name>KnowledgeDock</name>
    <message>
        <source>Knowledge base</source>
        <translation>知识库</translation>
    </message>
    <message>
        <source>&amp;Knowledge base</source>
        <translation>知识库(&amp;K)</translation>
    </message>
</context>
<context>
    <name>KnowledgeScopeButton</name>
    <message>
        <source>Knowledge base</source>
        <translation>知识库</translation>
    </message>
    <message>
        <source>Choose whether this conversation answers from the knowledge base, and from which documents</source>
        <translation>选择此对话是否从知识库回答，以及使用哪些文档</translation>
    </message>
    <message>
        <source>There is no knowledge base yet. Add documents in the Knowledge base panel to answer from them.</source>
        <translation>还没有知识库。请在“知识库”面板中添加文档，以便据此回答。</translation>
    </message>
    <message>
        <source>Knowledge base for this conversation</source>
        <translation>此对话的知识库</translation>
    </message>
    <message>
        <source>Knowledge base: off</source>
        <translation>知识库：关闭</translation>
    </message>
    <message>
        <source>Knowledge base: all documents</source>
        <translation>知识库：全部文档</translation>
    </message>
    <message>
        <source>1 folder</source>
        <translation>1 个文件夹</translation>
    </message>
    <message>
        <source>{0} folders</source>
        <translation>{0} 个文件夹</translation>
    </message>
    <message>
        <source>1 document</source>
        <translation>1 个文档</translation>
    </message>
    <message>
        <source>{0} documents</source>
        <translation>{0} 个文档</translation>
    </message>
    <message>
        <source>{0}, {1}</source>
        <translation>{0}、{1}</translation>
    </message>
    <message>
        <source>Knowledge base: {0}</source>
        <translation>知识库：{0}</translation>
    </message>
</context>
<context>
    <name>KnowledgeScopeDialog</name>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Knowledge base for a new chat</source>
        <translation>新对话的知识库</translation>
    </message>
    <message>
        <source>Knowledge base for this conversation</source>
        <translation>此对话的知识库</translation>
    </message>
    <message>
        <source>Use the knowledge base in this conversation</source>
        <translation>在此对话中使用知识库</translation>
    </message>
    <message>
        <source>Off: answers come from the model alone, without sources</source>
        <translation>关闭：回答只来自模型，不带来源</translation>
    </message>
    <message>
        <source>Use all documents</source>
        <translation>使用全部文档</translation>
    </message>
    <message>
        <source>Uncheck everything: the conversation may use every document</source>
        <translation>取消全部勾选：此对话可使用所有文档</translation>
    </message>
    <message>
        <source>Reading the documents…</source>
        <translation>正在读取文档…</translation>
    </message>
    <message>
        <source>The documents could not be read: {0}</source>
        <translation>无法读取文档：{0}</translation>
    </message>
    <message>
        <source>The knowledge base has no documents yet. Add some in the Knowledge base panel.</source>
        <translation>知识库中还没有文档。请在“知识库”面板中添加。</translation>
    </message>
    <message>
        <source>Answers come from the model alone; no documents are searched.</source>
        <translation>回答只来自模型，不检索任何文档。</translation>
    </message>
    <message>
        <source>Nothing is checked, so answers may use every document. Check folders or documents to use only those.</source>
        <translation>未勾选任何项，因此回答可使用所有文档。勾选文件夹或文档即可只使用它们。</translation>
    </message>
    <message>
        <source>Answers use only the checked folders and documents.</source>
        <translation>回答只使用已勾选的文件夹和文档。</translation>
    </message>
</context>
<context>
    <name>KnowledgeScopeTree</name>
    <message>
        <source>Folder or document</source>
        <translation>文件夹或文档</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Documents this conversation may use</source>
        <translation>此对话可使用的文档</translation>
    </message>
    <message>
        <source>Answers can use it once it is indexed.</source>
        <translation>索引完成后回答即可使用它。</translation>
    </message>
</context>
<context>
    <name>KnowledgeTexts</name>
    <message>
        <source>Indexed</source>
        <translation>已索引</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Indexing…</source>
        <translation>正在索引…</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>file not found</source>
        <translation>找不到文件</translation>
    </message>
    <message>
        <source>no text in it</source>
        <translation>其中没有文字</translation>
    </message>
    <message>
        <source>not a text document</source>
        <translation>不是文本文档</translation>
    </message>
    <message>
        <source>protected by a password</source>
        <translation>受密码保护</translation>
    </message>
    <message>
        <source>damaged file</source>
        <translation>文件已损坏</translation>
    </message>
    <message>
        <source>file type not supported</source>
        <translation>不支持的文件类型</translation>
    </message>
    <message>
        <source>cannot be read</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>over a size limit</source>
        <translation>超出大小限制</translation>
    </message>
    <message>
        <source>took too long to read</source>
        <translation>读取耗时过长</translation>
    </message>
    <message>
        <source>crashed the reader</source>
        <translation>导致读取进程崩溃</translation>
    </message>
    <message>
        <source>unknown problem</source>
        <translation>未知问题</translation>
    </message>
    <message>
        <source>Failed: {0}</source>
        <translation>失败：{0}</translation>
    </message>
    <message>
        <source>Keywords only (embedding…)</source>
        <translation>仅关键词（正在嵌入…）</translation>
    </message>
    <message>
        <source>Found by keywords and by meaning.</source>
        <translation>可按关键词和语义找到。</translation>
    </message>
    <message>
        <source>Found by keywords now; by meaning once its vectors are computed.</source>
        <translation>现在可按关键词找到；向量计算完成后也可按语义找到。</translation>
    </message>
    <message>
        <source>Loading the embedding model…</source>
        <translation>正在加载嵌入模型…</translation>
    </message>
    <message>
        <source>Looking for documents…</source>
        <translation>正在查找文档…</translation>
    </message>
    <message>
        <source>Tidying up the index…</source>
        <translation>正在整理索引…</translation>
    </message>
    <message>
        <source>Paused while an answer is written; indexing carries on after it…</source>
        <translation>正在生成回答，索引已暂停；回答完成后继续…</translation>
    </message>
    <message>
        <source>Re-embedding documents for the new embedding model…</source>
        <translation>正在用新的嵌入模型重新嵌入文档…</translation>
    </message>
    <message>
        <source>Indexing documents: {0} of {1} findable by keywords, {2} by meaning…</source>
        <translation>正在索引文档：{1} 个中已有 {0} 个可按关键词找到，{2} 个可按语义找到…</translation>
    </message>
    <message>
        <source>Indexing documents…</source>
        <translation>正在索引文档…</translation>
    </message>
    <message>
        <source>Cancelled. Finished documents were kept; the rest continue next time.</source>
        <translation>已取消。已完成的文档会保留，其余的下次继续。</translation>
    </message>
    <message>
        <source>Indexing stopped because of an error.</source>
        <translation>索引因出错而停止。</translation>
    </message>
    <message>
        <source>{0} indexed</source>
        <translation>已索引 {0} 个</translation>
    </message>
    <message>
        <source>{0} unchanged</source>
        <translation>{0} 个未变</translation>
    </message>
    <message>
        <source>{0} failed</source>
        <translation>{0} 个失败</translation>
    </message>
    <message>
        <source>{0} removed</source>
        <translation>移除 {0} 个</translation>
    </message>
    <message>
        <source>Done: {0}.</source>
        <translation>完成：{0}。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>1 document, searchable</source>
        <translation>1 个文档，可检索</translation>
    </message>
    <message>
        <source>{0} documents, all searchable</source>
        <translation>{0} 个文档，均可检索</translation>
    </message>
    <message>
        <source>{0} searchable</source>
        <translation>{0} 个可检索</translation>
    </message>
    <message>
        <source>{0} by keywords only (meaning coming)</source>
        <translation>{0} 个暂只能按关键词检索（语义检索稍后可用）</translation>
    </message>
    <message>
        <source>{0} waiting</source>
        <translation>{0} 个等待中</translation>
    </message>
    <message>
        <source>1 document: {0}</source>
        <translation>1 个文档：{0}</translation>
    </message>
    <message>
        <source>{0} documents: {1}</source>
        <translation>{0} 个文档：{1}</translation>
    </message>
    <message>
        <source>{0} chunks/s</source>
        <translation>{0} 块/秒</translation>
    </message>
    <message>
        <source>{0} · about {1} left</source>
        <translation>{0} · 约剩 {1}</translation>
    </message>
</context>
<context>
    <name>LinkCheck</name>
    <message>
        <source>Open link?</source>
        <translation>打开链接？</translation>
    </message>
    <message>
        <source>Open this address in your web browser?</source>
        <translation>在网页浏览器中打开此地址？</translation>
    </message>
</context>
<context>
    <name>LocalApi</name>
    <message>
        <source>Port {0} on {1} is already in use.</source>
        <translation>{1} 上的端口 {0} 已被占用。</translation>
    </message>
    <message>
        <source>Choose another port (unidesk serve --port N, or api.port in Settings).</source>
        <translation>请选择其他端口（unidesk serve --port N，或设置中的 api.port）。</translation>
    </message>
    <message>
        <source>The local API cannot listen on {0} ({1}).</source>
        <translation>本地 API 无法在 {0} 上监听（{1}）。</translation>
    </message>
</context>
<context>
    <name>LocalApiSwitch</name>
    <message>
        <source>Local API: {0}</source>
        <translation>本地 API：{0}</translation>
    </message>
    <message>
        <source>Programs on this computer can use the loaded model at this address with the token in {0}.</source>
        <translation>本机上的程序可以通过此地址、使用 {0} 中的令牌调用已加载的模型。</translation>
    </message>
    <message>
        <source>Local API: not running</source>
        <translation>本地 API：未运行</translation>
    </message>
    <message>
        <source>Local API: off</source>
        <translation>本地 API：关闭</translation>
    </message>
    <message>
        <source>Turn it on in Settings &gt; Local API.</source>
        <translation>可在“设置 &gt; 本地 API”中开启。</translation>
    </message>
</context>
<context>
    <name>LocalModelsPage</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Models on this computer</source>
        <translation>本机上的模型</translation>
    </message>
    <message>
        <source>No model on this computer yet. Download one from the catalog, or add a GGUF file or a Hugging Face model folder you already have.</source>
        <translation>本机上还没有模型。请从目录下载一个，或添加你已有的 GGUF 文件或 Hugging Face 模型文件夹。</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation>使用此模型</translation>
    </message>
    <message>
        <source>Add GGUF file…</source>
        <translation>添加 GGUF 文件…</translation>
    </message>
    <message>
        <source>Add model folder…</source>
        <translation>添加模型文件夹…</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Downloaded models are deleted from disk; your own files are only removed from this list</source>
        <translation>下载的模型会从磁盘上删除；你自己的文件只会从此列表中移除</translation>
    </message>
    <message>
        <source>{0} (loaded)</source>
        <translation>{0}（已加载）</translation>
    </message>
    <message>
        <source>Downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>Your file</source>
        <translation>你的文件</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <source>Missing: {0}</source>
        <translation>缺失：{0}</translation>
    </message>
</context>
<context>
    <name>MachineEvidence</name>
    <message>
        <source>copy benchmark failed: {0}</source>
        <translation>复制基准测试失败：{0}</translation>
    </message>
    <message>
        <source>copy benchmark too fast to time</source>
        <translation>复制基准测试太快，无法计时</translation>
    </message>
    <message>
        <source>numpy copy of {0:.0f} MiB on one CPU thread, best of {1}, read + write bytes counted (STREAM copy)</source>
        <translation>在一个 CPU 线程上用 numpy 复制 {0:.0f} MiB，取 {1} 次中的最好成绩，读和写的字节都计入（STREAM 复制测试）</translation>
    </message>
    <message>
        <source>{0} (matched &apos;{1}&apos;)</source>
        <translation>{0}（匹配“{1}”）</translation>
    </message>
    <message>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>no bandwidth figure known for {0}</source>
        <translation>没有 {0} 的已知带宽数据</translation>
    </message>
    <message>
        <source>no table entry for {0}; measurement not requested</source>
        <translation>表中没有 {0} 的条目；未要求实测</translation>
    </message>
    <message>
        <source>NVML not available: {0}</source>
        <translation>NVML 不可用：{0}</translation>
    </message>
    <message>
        <source>CUDA driver not reachable: {0}</source>
        <translation>无法访问 CUDA 驱动：{0}</translation>
    </message>
    <message>
        <source>Verdict: unified memory; the pool is system RAM, counted once (free memory is what the OS reports as available, MemAvailable on Linux)</source>
        <translation>结论：统一内存；内存池就是系统内存，只计算一次（空闲内存取操作系统报告的可用内存，在 Linux 上为 MemAvailable）</translation>
    </message>
    <message>
        <source>Verdict: discrete GPU memory, counted separately from system RAM</source>
        <translation>结论：独立显存，与系统内存分开计算</translation>
    </message>
    <message>
        <source>Verdict: no GPU; models run from system RAM on the CPU</source>
        <translation>结论：无 GPU；模型在 CPU 上使用系统内存运行</translation>
    </message>
    <message>
        <source>CUDA reports {0} as integrated (CU_DEVICE_ATTRIBUTE_INTEGRATED = 1)</source>
        <translation>CUDA 报告 {0} 为集成 GPU（CU_DEVICE_ATTRIBUTE_INTEGRATED = 1）</translation>
    </message>
    <message>
        <source>CUDA reports {0} as not integrated (CU_DEVICE_ATTRIBUTE_INTEGRATED = 0)</source>
        <translation>CUDA 报告 {0} 不是集成 GPU（CU_DEVICE_ATTRIBUTE_INTEGRATED = 0）</translation>
    </message>
    <message>
        <source>&apos;{0}&apos; is a unified-memory part: its GPU shares or coherently addresses CPU memory</source>
        <translation>“{0}”是统一内存型号：其 GPU 共享或一致地访问 CPU 内存</translation>
    </message>
    <message>
        <source>NVML cannot report memory for {0} (Not Supported): it has no memory of its own</source>
        <translation>NVML 无法报告 {0} 的显存（Not Supported）：它没有自己的显存</translation>
    </message>
    <message>
        <source>NVML reports {0} of memory on {1}</source>
        <translation>NVML 报告 {1} 上有 {0} 显存</translation>
    </message>
    <message>
        <source>NVML memory query failed for {0}: {1}</source>
        <translation>NVML 查询 {0} 的显存失败：{1}</translation>
    </message>
    <message>
        <source>{0}, next to an NVIDIA GPU (coherent NVLink-C2C superchip)</source>
        <translation>{0}，旁边有 NVIDIA GPU（一致性 NVLink-C2C 超级芯片）</translation>
    </message>
    <message>
        <source>{0}, but no NVIDIA GPU was found</source>
        <translation>{0}，但没有找到 NVIDIA GPU</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>{0} has a {1} VRAM carve-out and {2} of GTT: an APU using system RAM</source>
        <translation>{0} 划出了 {1} 显存，GTT 为 {2}：这是使用系统内存的 APU</translation>
    </message>
    <message>
        <source>{0} has {1} of dedicated VRAM (GTT {2})</source>
        <translation>{0} 有 {1} 专用显存（GTT {2}）</translation>
    </message>
    <message>
        <source>An NVIDIA GPU is present, so the AMD GPU does not decide the verdict</source>
        <translation>存在 NVIDIA GPU，因此 AMD GPU 不决定结论</translation>
    </message>
    <message>
        <source>A discrete AMD GPU is present, so the APU does not decide the verdict</source>
        <translation>存在独立的 AMD GPU，因此 APU 不决定结论</translation>
    </message>
    <message>
        <source>Apple Silicon ({0}): CPU and GPU share one unified memory</source>
        <translation>Apple 芯片（{0}）：CPU 和 GPU 共享同一块统一内存</translation>
    </message>
    <message>
        <source>Probe note: {0}</source>
        <translation>探测说明：{0}</translation>
    </message>
    <message>
        <source>No GPU found (no NVIDIA device, no AMD card in /sys/class/drm, not Apple Silicon)</source>
        <translation>未找到 GPU（没有 NVIDIA 设备，/sys/class/drm 中没有 AMD 显卡，也不是 Apple 芯片）</translation>
    </message>
    <message>
        <source>Built-in profile &apos;{0}&apos;: {1}</source>
        <translation>内置配置 &apos;{0}&apos;：{1}</translation>
    </message>
    <message>
        <source>the backend UniDesk picks on this machine (profile &apos;{0}&apos;)</source>
        <translation>UniDesk 在这台机器上选择的后端（配置 &apos;{0}&apos;）</translation>
    </message>
</context>
<context>
    <name>MachineFile</name>
    <message>
        <source>Unknown machine &apos;{0}&apos;: not a built-in profile nor a file.</source>
        <translation>未知的机器 &apos;{0}&apos;：既不是内置配置，也不是文件。</translation>
    </message>
    <message>
        <source>Use one of {0}, or a file saved on that computer with: unidesk probe --json &gt; FILE</source>
        <translation>请使用 {0} 之一，或在那台电脑上用以下命令保存的文件：unidesk probe --json &gt; FILE</translation>
    </message>
    <message>
        <source>Cannot read the machine file {0}: {1}.</source>
        <translation>无法读取机器描述文件 {0}：{1}。</translation>
    </message>
    <message>
        <source>Give a file saved with: unidesk probe --json &gt; FILE</source>
        <translation>请提供用以下命令保存的文件：unidesk probe --json &gt; FILE</translation>
    </message>
    <message>
        <source>{0} is not a saved machine description: {1}.</source>
        <translation>{0} 不是保存的机器描述：{1}。</translation>
    </message>
    <message>
        <source>Save one again on that computer with: unidesk probe --json &gt; FILE</source>
        <translation>请在那台电脑上重新保存：unidesk probe --json &gt; FILE</translation>
    </message>
</context>
<context>
    <name>MachineProfiles</name>
    <message>
        <source>NVIDIA DGX Spark (GB10, 128 GB unified)</source>
        <translation>NVIDIA DGX Spark（GB10，128 GB 统一内存）</translation>
    </message>
    <message>
        <source>NVIDIA Jetson AGX Thor Developer Kit (T5000, 128 GB unified)</source>
        <translation>NVIDIA Jetson AGX Thor 开发者套件（T5000，128 GB 统一内存）</translation>
    </message>
    <message>
        <source>NVIDIA Jetson AGX Orin 64GB</source>
        <translation>NVIDIA Jetson AGX Orin 64GB</translation>
    </message>
    <message>
        <source>NVIDIA GH200 Grace Hopper Superchip (480 GB LPDDR5X + 96 GB HBM3)</source>
        <translation>NVIDIA GH200 Grace Hopper 超级芯片（480 GB LPDDR5X + 96 GB HBM3）</translation>
    </message>
    <message>
        <source>Desktop with NVIDIA GeForce RTX 4090 (24 GB) and 64 GB RAM</source>
        <translation>配 NVIDIA GeForce RTX 4090（24 GB）和 64 GB 内存的台式机</translation>
    </message>
    <message>
        <source>Apple MacBook Pro, M3 Max (16-core CPU, 40-core GPU, 128 GB unified)</source>
        <translation>Apple MacBook Pro，M3 Max（16 核 CPU，40 核 GPU，128 GB 统一内存）</translation>
    </message>
    <message>
        <source>CPU-only laptop (8 cores, 16 GB DDR5-5600 dual channel)</source>
        <translation>无独立显卡的笔记本（8 核，16 GB DDR5-5600 双通道）</translation>
    </message>
</context>
<context>
    <name>MachineSummary</name>
    <message>
        <source>table</source>
        <translation>查表</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>unknown ({0})</source>
        <translation>未知（{0}）</translation>
    </message>
    <message>
        <source>{0} ({1}: {2})</source>
        <translation>{0}（{1}：{2}）</translation>
    </message>
    <message>
        <source>{0}, {1} free</source>
        <translation>{0}，空闲 {1}</translation>
    </message>
    <message>
        <source>shares system RAM</source>
        <translation>共享系统内存</translation>
    </message>
    <message>
        <source>integrated</source>
        <translation>集成</translation>
    </message>
    <message>
        <source>compute {0}</source>
        <translation>计算能力 {0}</translation>
    </message>
    <message>
        <source>driver {0}</source>
        <translation>驱动 {0}</translation>
    </message>
    <message>
        <source>{0} ({1})</source>
        <translation>{0}（{1}）</translation>
    </message>
    <message>
        <source>{0}, {1} cores / {2} threads</source>
        <translation>{0}，{1} 核 / {2} 线程</translation>
    </message>
    <message>
        <source>OS</source>
        <translation>操作系统</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>{0} total, {1} available</source>
        <translation>共 {0}，可用 {1}</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>yes: one pool (system RAM), counted once</source>
        <translation>是：一个内存池（系统内存），只计算一次</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Unified memory</source>
        <translation>统一内存</translation>
    </message>
    <message>
        <source>Bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>UniDesk</source>
        <translation>UniDesk</translation>
    </message>
    <message>
        <source>Gauges</source>
        <translation>仪表</translation>
    </message>
    <message>
        <source>Download, add, delete and switch models</source>
        <translation>下载、添加、删除和切换模型</translation>
    </message>
    <message>
        <source>&amp;Models…</source>
        <translation>模型(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Export conversation as Markdown…</source>
        <translation>将对话导出为 Markdown(&amp;E)…</translation>
    </message>
    <message>
        <source>Export conversation as &amp;JSON…</source>
        <translation>将对话导出为 JSON(&amp;J)…</translation>
    </message>
    <message>
        <source>&amp;Import conversation…</source>
        <translation>导入对话(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Load model…</source>
        <translation>加载模型(&amp;L)…</translation>
    </message>
    <message>
        <source>Load model &amp;folder…</source>
        <translation>加载模型文件夹(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Unload model</source>
        <translation>卸载模型(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Gauges</source>
        <translation>仪表(&amp;G)</translation>
    </message>
    <message>
        <source>The conversation was exported to {0}</source>
        <translation>对话已导出到 {0}</translation>
    </message>
    <message>
        <source>Some settings were not valid and use their defaults: {0}</source>
        <translation>部分设置无效，已改用默认值：{0}</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Some settings were not valid and use their defaults:</source>
        <translation>部分设置无效，已改用默认值：</translation>
    </message>
    <message>
        <source>The original file was kept as {0}</source>
        <translation>原文件已保留为 {0}</translation>
    </message>
    <message>
        <source>Could not look at this machine: {0}</source>
        <translation>无法查看本机信息：{0}</translation>
    </message>
    <message>
        <source>Load a model</source>
        <translation>加载模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Load a Hugging Face model folder</source>
        <translation>加载 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>未加载模型。</translation>
    </message>
    <message>
        <source>Loading {0}…</source>
        <translation>正在加载 {0}…</translation>
    </message>
    <message>
        <source>{0} is ready.</source>
        <translation>{0} 已就绪。</translation>
    </message>
    <message>
        <source>The model could not be loaded: {0}</source>
        <translation>无法加载模型：{0}</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>The changes take effect when a model is loaded.</source>
        <translation>这些更改将在加载模型时生效。</translation>
    </message>
    <message>
        <source>A model is loading; load it again to apply: {0}.</source>
        <translation>有模型正在加载；请再次加载以应用：{0}。</translation>
    </message>
    <message>
        <source>Reloading the model to apply: {0}.</source>
        <translation>正在重新加载模型以应用：{0}。</translation>
    </message>
</context>
<context>
    <name>MarkdownBody</name>
    <message>
        <source>Message text</source>
        <translation>消息正文</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
</context>
<context>
    <name>MemoryBar</name>
    <message>
        <source>Memory bar</source>
        <translation>内存条形图</translation>
    </message>
</context>
<context>
    <name>MemoryGauge</name>
    <message>
        <source>Memory gauge</source>
        <translation>内存仪表</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Reading memory…</source>
        <translation>正在读取内存…</translation>
    </message>
    <message>
        <source>UniDesk holds {0} now (app {1}, engine processes {2}).</source>
        <translation>UniDesk 当前占用 {0}（应用 {1}，引擎进程 {2}）。</translation>
    </message>
    <message>
        <source>UniDesk holds {0} now.</source>
        <translation>UniDesk 当前占用 {0}。</translation>
    </message>
    <message>
        <source>Model parts are the memory plan; other programs and free space are measured.</source>
        <translation>模型部分来自内存规划；其他程序和空闲空间为实测值。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>未加载模型。</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
</context>
<context>
    <name>MemoryGuardian</name>
    <message>
        <source>The GPU reports {0} free, the system {1}: the difference is page cache, which the system reclaims when needed.</source>
        <translation>GPU 报告空闲 {0}，系统报告 {1}：差额是页面缓存，系统在需要时会回收它。</translation>
    </message>
    <message>
        <source>GPU memory ({0})</source>
        <translation>GPU 显存（{0}）</translation>
    </message>
    <message>
        <source>memory as the GPU sees it ({0}, page cache included)</source>
        <translation>GPU 所见的内存（{0}，含页面缓存）</translation>
    </message>
    <message>
        <source>system memory</source>
        <translation>系统内存</translation>
    </message>
    <message>
        <source>The GPU reports only {0} free while the system reports {1} available; with the page cache ({2}) the GPU can have {3}, and the guardian goes by that.</source>
        <translation>GPU 只报告空闲 {0}，而系统报告可用 {1}；加上可回收的页面缓存（{2}），GPU 可用 {3}，内存守护按这个数字判断。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Memory recovered ({0} free): new requests are accepted again.</source>
        <translation>内存已恢复（空闲 {0}）：重新接受新的请求。</translation>
    </message>
    <message>
        <source>New requests are paused: only {0} of {1} is free, less than the {2} safety margin.</source>
        <translation>新的请求已暂停：{1}只有 {0} 空闲，低于 {2} 的安全余量。</translation>
    </message>
    <message>
        <source>The model was unloaded to keep the system responsive: only {0} of {1} was free (the floor is {2}). Most memory: {3}. Load it again with a shorter context or fewer chats once memory is free.</source>
        <translation>为保持系统响应，模型已被卸载：{1}只有 {0} 空闲（下限为 {2}）。占用内存最多的是：{3}。内存释放后，请用更短的上下文或更少的对话重新加载。</translation>
    </message>
    <message>
        <source>Close other programs, or unload the model or reload it with a shorter context or fewer chats. Most memory: {0}.</source>
        <translation>请关闭其他程序，或卸载模型，或用更短的上下文、更少的对话重新加载。占用内存最多的是：{0}。</translation>
    </message>
    <message>
        <source>The model is being unloaded: memory ran out.</source>
        <translation>正在卸载模型：内存已耗尽。</translation>
    </message>
</context>
<context>
    <name>MemoryNoticeBar</name>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Unload the model</source>
        <translation>卸载模型</translation>
    </message>
    <message>
        <source>Reload smaller</source>
        <translation>缩小后重新加载</translation>
    </message>
    <message>
        <source>Load the model again with half the context length</source>
        <translation>用一半的上下文长度重新加载模型</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭提示</translation>
    </message>
    <message>
        <source>Most memory:</source>
        <translation>占用内存最多的是：</translation>
    </message>
</context>
<context>
    <name>MemoryPlan</name>
    <message>
        <source>{0} tokens × {1} chat</source>
        <translation>{0} 词元 × {1} 个对话</translation>
    </message>
    <message>
        <source>{0} tokens × {1} chats</source>
        <translation>{0} 词元 × {1} 个对话</translation>
    </message>
    <message>
        <source>{0} with a {1} KV cache</source>
        <translation>{0}，使用 {1} KV 缓存</translation>
    </message>
    <message>
        <source>{0} {1}</source>
        <translation>{0}，{1}</translation>
    </message>
    <message>
        <source>with all layers on the GPU</source>
        <translation>所有层都在 GPU 上</translation>
    </message>
    <message>
        <source>with {0} of {1} layers on the GPU</source>
        <translation>{1} 层中的 {0} 层在 GPU 上</translation>
    </message>
    <message>
        <source>needs {0} of GPU memory but {1} is free after the {2} reserve</source>
        <translation>需要 {0} 显存，但扣除 {2} 保留后只有 {1} 空闲</translation>
    </message>
    <message>
        <source>needs {0} of RAM but {1} is free after the {2} reserve</source>
        <translation>需要 {0} 内存，但扣除 {2} 保留后只有 {1} 空闲</translation>
    </message>
    <message>
        <source>needs {0} but {1} is free</source>
        <translation>需要 {0}，但只有 {1} 空闲</translation>
    </message>
    <message>
        <source> (the model was trained for at most {0} tokens)</source>
        <translation>（该模型最多训练到 {0} 词元）</translation>
    </message>
    <message>
        <source>{0}{1}.</source>
        <translation>{0}{1}。</translation>
    </message>
    <message>
        <source>{0} {1}{2}; {3} fits.</source>
        <translation>{0}{1}{2}；{3}可以装下。</translation>
    </message>
    <message>
        <source>Even {0} (the least) {1}, so this model does not fit here (its weights alone are {2}){3}.</source>
        <translation>即使是最小的设置 {0}，也{1}，因此本机装不下这个模型（仅权重就有 {2}）{3}。</translation>
    </message>
    <message>
        <source>{0} fits</source>
        <translation>{0}可以装下</translation>
    </message>
    <message>
        <source>{0}, the most context that does (the model allows {1})</source>
        <translation>{0}，这是能装下的最长上下文（模型最多允许 {1}）</translation>
    </message>
    <message>
        <source>{0}, the model&apos;s full context</source>
        <translation>{0}，即模型的完整上下文</translation>
    </message>
    <message>
        <source>{0}: it needs {1} of the {2} free</source>
        <translation>{0}：需要 {1}，空闲 {2}</translation>
    </message>
    <message>
        <source>the GPU answers up to {0} chats together for little more than the time of one</source>
        <translation>GPU 同时回答最多 {0} 个对话，用时与回答一个相差无几</translation>
    </message>
    <message>
        <source>with {0} CPU cores, one chat at a time answers fastest</source>
        <translation>只有 {0} 个 CPU 核心时，一次回答一个对话最快</translation>
    </message>
    <message>
        <source>{0} CPU cores answer up to {1} chats together</source>
        <translation>{0} 个 CPU 核心可同时回答最多 {1} 个对话</translation>
    </message>
    <message>
        <source>{0}, but memory leaves room for {1} of {2} tokens each</source>
        <translation>{0}，但内存只够 {1} 个对话、每个 {2} 词元</translation>
    </message>
    <message>
        <source>{0}, but memory is short even for one chat</source>
        <translation>{0}，但内存连一个对话都不够</translation>
    </message>
    <message>
        <source>1 chat at a time, chosen automatically: {0}.</source>
        <translation>一次一个对话，自动选择：{0}。</translation>
    </message>
    <message>
        <source>{0} chats at once, chosen automatically: {1}.</source>
        <translation>同时 {0} 个对话，自动选择：{1}。</translation>
    </message>
</context>
<context>
    <name>MemoryVerdictView</name>
    <message>
        <source>Memory verdict</source>
        <translation>内存评估</translation>
    </message>
    <message>
        <source>Memory plan details</source>
        <translation>内存规划详情</translation>
    </message>
    <message>
        <source>Memory: working it out…</source>
        <translation>内存：正在计算…</translation>
    </message>
    <message>
        <source>Memory: could not plan ({0})</source>
        <translation>内存：无法规划（{0}）</translation>
    </message>
    <message>
        <source>Memory: choose a model to see whether it fits.</source>
        <translation>内存：选择一个模型，看看是否装得下。</translation>
    </message>
    <message>
        <source>Memory: cannot plan this model.</source>
        <translation>内存：无法为此模型做规划。</translation>
    </message>
    <message>
        <source>Memory: the remote server runs the model; nothing is loaded here.</source>
        <translation>内存：模型由远程服务器运行，本机不加载任何内容。</translation>
    </message>
    <message>
        <source>Fits: {0} of {1} free</source>
        <translation>装得下：需要 {0}，空闲 {1}</translation>
    </message>
    <message>
        <source>Needs {0}, {1} free</source>
        <translation>需要 {0}，空闲 {1}</translation>
    </message>
    <message>
        <source>lower context to {0}</source>
        <translation>把上下文降到 {0}</translation>
    </message>
    <message>
        <source>parallel chats to {0}</source>
        <translation>把并行对话数改为 {0}</translation>
    </message>
    <message>
        <source>{0}: {1}</source>
        <translation>{0}：{1}</translation>
    </message>
    <message>
        <source> or </source>
        <translation> 或 </translation>
    </message>
    <message>
        <source>{0}: try context {1} with one chat at a time and a {2} KV cache</source>
        <translation>{0}：试试上下文 {1}、一次一个对话、{2} 类型的 KV 缓存</translation>
    </message>
    <message>
        <source>{0}: try context {1} with {2} parallel chats and a {3} KV cache</source>
        <translation>{0}：试试上下文 {1}、{2} 个并行对话、{3} 类型的 KV 缓存</translation>
    </message>
    <message>
        <source>{0}: this model does not fit on this machine</source>
        <translation>{0}：本机装不下这个模型</translation>
    </message>
</context>
<context>
    <name>MessageList</name>
    <message>
        <source>Messages</source>
        <translation>消息列表</translation>
    </message>
    <message>
        <source>Earlier messages above this line are not sent to the model (context full)</source>
        <translation>此线以上的较早消息不会发送给模型（上下文已满）</translation>
    </message>
</context>
<context>
    <name>MessageWidget</name>
    <message>
        <source>Previous alternative</source>
        <translation>上一个版本</translation>
    </message>
    <message>
        <source>Next alternative</source>
        <translation>下一个版本</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Ask the edited question; the original stays as an alternative</source>
        <translation>提交修改后的问题；原问题作为另一个版本保留</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy the message</source>
        <translation>复制这条消息</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Edit and ask again (a new branch)</source>
        <translation>编辑后重新提问（新分支）</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Write another answer (this one is kept as an alternative)</source>
        <translation>再写一个回答（当前回答作为另一个版本保留）</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Go on writing this answer</source>
        <translation>继续写这个回答</translation>
    </message>
    <message>
        <source>Edit the question</source>
        <translation>编辑问题</translation>
    </message>
    <message>
        <source>Alternative</source>
        <translation>当前版本</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Writing…</source>
        <translation>正在写…</translation>
    </message>
    <message>
        <source>Stopped. The answer so far is kept; Continue goes on from here.</source>
        <translation>已停止。目前的回答会保留；点“继续”可接着写。</translation>
    </message>
    <message>
        <source>Cut off at the length limit; Continue goes on from here.</source>
        <translation>已达到长度上限而中断；点“继续”可接着写。</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>未知错误</translation>
    </message>
    <message>
        <source>This answer failed: {0}</source>
        <translation>这个回答失败了：{0}</translation>
    </message>
    <message>
        <source>Interrupted before it finished; Continue goes on from here.</source>
        <translation>未写完就被中断；点“继续”可接着写。</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
</context>
<context>
    <name>ModelErrors</name>
    <message>
        <source>Not enough disk space for {0}: it needs {1} more (and {2} to spare), but only {3} is free on {4}.</source>
        <translation>磁盘空间不足，无法下载 {0}：还需要 {1}（另需留出 {2}），但 {4} 上只有 {3} 可用。</translation>
    </message>
    <message>
        <source>Free up disk space, or choose another models folder in Settings (model.folder).</source>
        <translation>请释放磁盘空间，或在设置中选择其他模型文件夹（model.folder）。</translation>
    </message>
    <message>
        <source>No download source could provide {0}: {1}.</source>
        <translation>没有任何下载来源能提供 {0}：{1}。</translation>
    </message>
    <message>
        <source>Check the internet connection, or choose another download source in Settings (model.download_source); the download resumes where it stopped.</source>
        <translation>请检查网络连接，或在设置中选择其他下载来源（model.download_source）；下载会从中断处继续。</translation>
    </message>
    <message>
        <source>The expected sha256 is the one the catalog states. Run the download again; if it fails again, the publisher has probably replaced the file since the catalog was written: choose another variant, or update UniDesk.</source>
        <translation>预期的 sha256 是目录给出的值。请重新下载；如果再次失败，多半是发布者在目录编写之后替换了该文件：请选择其他版本，或更新 UniDesk。</translation>
    </message>
    <message>
        <source>{0} has no model files to download.</source>
        <translation>{0} 没有可下载的模型文件。</translation>
    </message>
    <message>
        <source>The catalog entry may be out of date.</source>
        <translation>模型目录中的这一条可能已过时。</translation>
    </message>
    <message>
        <source>Check the internet connection (or the HF_ENDPOINT variable) and try again.</source>
        <translation>请检查网络连接（或 HF_ENDPOINT 变量），然后重试。</translation>
    </message>
    <message>
        <source>Try again later.</source>
        <translation>请稍后重试。</translation>
    </message>
    <message>
        <source>The hub redirected {0} too many times.</source>
        <translation>模型仓库对 {0} 的重定向次数过多。</translation>
    </message>
    <message>
        <source>The hub&apos;s file list for {0} is not in the expected form.</source>
        <translation>模型仓库返回的 {0} 文件列表格式不符合预期。</translation>
    </message>
    <message>
        <source>The hub&apos;s answer about {0} is not valid JSON.</source>
        <translation>模型仓库关于 {0} 的回复不是有效的 JSON。</translation>
    </message>
    <message>
        <source>{0} was not found on {1} ({2}): the repository does not exist or is private.</source>
        <translation>在 {1} 上找不到 {0}（{2}）：仓库不存在或为私有。</translation>
    </message>
    <message>
        <source>Check the model id; for a private repository set HF_TOKEN to a token that can read it.</source>
        <translation>请检查模型 ID；私有仓库请把 HF_TOKEN 设为有读取权限的令牌。</translation>
    </message>
    <message>
        <source>{0} was not found on {1} (404).</source>
        <translation>在 {1} 上找不到 {0}（404）。</translation>
    </message>
    <message>
        <source>The catalog entry may be out of date, or the file was renamed or removed.</source>
        <translation>模型目录中的这一条可能已过时，或文件已被改名或删除。</translation>
    </message>
    <message>
        <source>{0} is a gated model: {1} refused access ({2}).</source>
        <translation>{0} 是受限模型：{1} 拒绝访问（{2}）。</translation>
    </message>
    <message>
        <source>Accept the model&apos;s licence on its Hugging Face page, then set HF_TOKEN to that account&apos;s token.</source>
        <translation>请在该模型的 Hugging Face 页面上接受许可协议，然后把 HF_TOKEN 设为该账号的令牌。</translation>
    </message>
    <message>
        <source>The token in HF_TOKEN was rejected; create a new read token on huggingface.co.</source>
        <translation>HF_TOKEN 中的令牌被拒绝；请在 huggingface.co 上新建一个读取令牌。</translation>
    </message>
    <message>
        <source>Set HF_TOKEN to a Hugging Face access token that can read it.</source>
        <translation>请把 HF_TOKEN 设为有读取权限的 Hugging Face 访问令牌。</translation>
    </message>
    <message>
        <source>{0} refused access to {1} (401 Unauthorized).</source>
        <translation>{0} 拒绝访问 {1}（401 未授权）。</translation>
    </message>
    <message>
        <source>{0} is limiting requests (429 Too Many Requests).</source>
        <translation>{0} 正在限制请求（429 请求过多）。</translation>
    </message>
    <message>
        <source>Wait a few minutes, then run the download again: it resumes.</source>
        <translation>请等几分钟后重新下载：会从中断处继续。</translation>
    </message>
    <message>
        <source>{0} answered {1} {2} for {3}.</source>
        <translation>{0} 对 {3} 的回复是 {1} {2}。</translation>
    </message>
    <message>
        <source>Try again later: the download resumes where it stopped.</source>
        <translation>请稍后重试：下载会从中断处继续。</translation>
    </message>
    <message>
        <source>{0} did not answer within {1:.0f} s</source>
        <translation>{0} 在 {1:.0f} 秒内没有响应</translation>
    </message>
    <message>
        <source>Cannot reach {0}: this computer seems to be offline (the name could not be looked up)</source>
        <translation>无法连接 {0}：这台电脑似乎没有联网（无法解析域名）</translation>
    </message>
    <message>
        <source>Cannot reach {0}: the connection was refused</source>
        <translation>无法连接 {0}：连接被拒绝</translation>
    </message>
    <message>
        <source>Cannot reach {0}: the secure connection failed (a proxy or the system clock?)</source>
        <translation>无法连接 {0}：安全连接失败（代理设置或系统时间有误？）</translation>
    </message>
    <message>
        <source>Cannot reach {0}: {1}</source>
        <translation>无法连接 {0}：{1}</translation>
    </message>
    <message>
        <source>{0}.</source>
        <translation>{0}。</translation>
    </message>
    <message>
        <source>{0} ({1}) is already downloaded.</source>
        <translation>{0}（{1}）已经下载。</translation>
    </message>
    <message>
        <source>Pick it in the model list, or remove it first to download it again.</source>
        <translation>请在模型列表中选择它，或先删除再重新下载。</translation>
    </message>
    <message>
        <source>There is no local model &apos;{0}&apos;.</source>
        <translation>没有本地模型“{0}”。</translation>
    </message>
    <message>
        <source>Run `unidesk models list` to see their ids.</source>
        <translation>运行 `unidesk models list` 查看它们的 ID。</translation>
    </message>
    <message>
        <source>{0} is not inside the models folder {1}.</source>
        <translation>{0} 不在模型文件夹 {1} 中。</translation>
    </message>
    <message>
        <source>{0} is not a model UniDesk can load: {1}</source>
        <translation>{0} 不是 UniDesk 能加载的模型：{1}</translation>
    </message>
    <message>
        <source>{0} has a config.json but no .safetensors weights.</source>
        <translation>{0} 有 config.json，但没有 .safetensors 权重。</translation>
    </message>
    <message>
        <source>Add a folder that holds the model&apos;s weights, or a .gguf file.</source>
        <translation>请添加包含模型权重的文件夹，或一个 .gguf 文件。</translation>
    </message>
    <message>
        <source>{0} is already being downloaded by another UniDesk process.</source>
        <translation>{0} 正由另一个 UniDesk 进程下载。</translation>
    </message>
    <message>
        <source>Let that download finish, then try again.</source>
        <translation>请等那个下载完成，然后重试。</translation>
    </message>
    <message>
        <source>{0} changed on the hub while it was being downloaded.</source>
        <translation>{0} 在下载过程中在模型仓库上发生了变化。</translation>
    </message>
    <message>
        <source>Run the download again to fetch the new version.</source>
        <translation>请重新下载以获取新版本。</translation>
    </message>
    <message>
        <source>Cannot write {0}: {1}.</source>
        <translation>无法写入 {0}：{1}。</translation>
    </message>
    <message>
        <source>Free some disk space or choose another models folder (setting model.folder).</source>
        <translation>请释放一些磁盘空间，或选择其他模型文件夹（设置项 model.folder）。</translation>
    </message>
    <message>
        <source>the download from {0} kept starting over</source>
        <translation>从 {0} 的下载不断从头开始</translation>
    </message>
    <message>
        <source>the connection to {0} kept dropping ({1})</source>
        <translation>与 {0} 的连接不断中断（{1}）</translation>
    </message>
    <message>
        <source>Run the download again: it resumes from where it stopped.</source>
        <translation>请重新下载：会从中断处继续。</translation>
    </message>
    <message>
        <source>Downloading {0} stopped at {1} bytes: {2}.</source>
        <translation>下载 {0} 停在第 {1} 字节：{2}。</translation>
    </message>
    <message>
        <source>Downloading {0} stopped at {1} of {2} bytes: {3}.</source>
        <translation>下载 {0} 停在第 {1} 字节（共 {2} 字节）：{3}。</translation>
    </message>
    <message>
        <source>{0} came out at {1} bytes instead of {2}; the partial file was deleted.</source>
        <translation>{0} 下载后为 {1} 字节，而不是 {2} 字节；不完整的文件已删除。</translation>
    </message>
    <message>
        <source>Run the download again.</source>
        <translation>请重新下载。</translation>
    </message>
    <message>
        <source>{0} failed verification: its {1} is {2}..., expected {3}...; the corrupt partial file was deleted.</source>
        <translation>{0} 校验失败：其 {1} 为 {2}...，应为 {3}...；损坏的不完整文件已删除。</translation>
    </message>
    <message>
        <source>Run the download again; if it fails again, the hub or a proxy is serving a damaged file.</source>
        <translation>请重新下载；如果再次失败，说明模型仓库或代理提供的文件已损坏。</translation>
    </message>
</context>
<context>
    <name>ModelFiles</name>
    <message>
        <source>Pick a complete .gguf model file (re-download it if it was interrupted).</source>
        <translation>请选择完整的 .gguf 模型文件（如果下载曾中断，请重新下载）。</translation>
    </message>
    <message>
        <source>{0} cannot be read ({1}).</source>
        <translation>无法读取 {0}（{1}）。</translation>
    </message>
    <message>
        <source>{0} is truncated: its tensors need {1} bytes but the file has {2}.</source>
        <translation>{0} 不完整：其张量需要 {1} 字节，但文件只有 {2} 字节。</translation>
    </message>
    <message>
        <source>{0}: tensor {1} has type {2}, which this app does not know.</source>
        <translation>{0}：张量 {1} 的类型为 {2}，本应用无法识别。</translation>
    </message>
    <message>
        <source>Update UniDesk or choose another build of the model.</source>
        <translation>请更新 UniDesk，或选择该模型的其他构建版本。</translation>
    </message>
    <message>
        <source>{0} is damaged: tensor {1} has {2} columns, not a multiple of {3} as {4} needs.</source>
        <translation>{0} 已损坏：张量 {1} 有 {2} 列，不是 {4} 所要求的 {3} 的倍数。</translation>
    </message>
    <message>
        <source>{0} uses GGUF version {1}, which this app cannot read.</source>
        <translation>{0} 使用 GGUF 版本 {1}，本应用无法读取。</translation>
    </message>
    <message>
        <source>{0} is truncated or damaged: its GGUF header cannot be read ({1}).</source>
        <translation>{0} 不完整或已损坏：无法读取其 GGUF 文件头（{1}）。</translation>
    </message>
    <message>
        <source>{0} is damaged: {1}.</source>
        <translation>{0} 已损坏：{1}。</translation>
    </message>
    <message>
        <source>{0} has no usable GGUF key {1}.</source>
        <translation>{0} 缺少可用的 GGUF 键 {1}。</translation>
    </message>
    <message>
        <source>The file may be from an unsupported converter; try another build of the model.</source>
        <translation>该文件可能由不受支持的转换工具生成；请尝试该模型的其他构建版本。</translation>
    </message>
    <message>
        <source>Pick a .gguf file, a Hugging Face model folder (with config.json) or a config.json.</source>
        <translation>请选择 .gguf 文件、Hugging Face 模型文件夹（含 config.json）或 config.json 文件。</translation>
    </message>
    <message>
        <source>Pick a Hugging Face model folder (with config.json), a config.json or a .gguf file.</source>
        <translation>请选择 Hugging Face 模型文件夹（含 config.json）、config.json 文件或 .gguf 文件。</translation>
    </message>
    <message>
        <source>{0} has no config.json, so it is not a Hugging Face model folder.</source>
        <translation>{0} 中没有 config.json，所以不是 Hugging Face 模型文件夹。</translation>
    </message>
    <message>
        <source>{0} does not exist.</source>
        <translation>{0} 不存在。</translation>
    </message>
    <message>
        <source>Cannot read {0}: {1}.</source>
        <translation>无法读取 {0}：{1}。</translation>
    </message>
    <message>
        <source>{0} is not valid JSON (line {1}: {2}).</source>
        <translation>{0} 不是有效的 JSON（第 {1} 行：{2}）。</translation>
    </message>
    <message>
        <source>{0} is not a model config (expected a JSON object).</source>
        <translation>{0} 不是模型配置（应为 JSON 对象）。</translation>
    </message>
    <message>
        <source>{0} has no vocab_size and there are no weights beside it, so the model size cannot be worked out.</source>
        <translation>{0} 没有 vocab_size，旁边也没有权重文件，因此无法算出模型大小。</translation>
    </message>
    <message>
        <source>{0} is not a GGUF file (it does not start with &apos;GGUF&apos;).</source>
        <translation>{0} 不是 GGUF 文件（它不以 &apos;GGUF&apos; 开头）。</translation>
    </message>
    <message>
        <source>{0} (model_type &apos;{1}&apos;) does not say how many layers, attention heads and hidden units the model has.</source>
        <translation>{0}（model_type “{1}”）没有说明模型的层数、注意力头数和隐藏单元数。</translation>
    </message>
    <message>
        <source>The planner needs a decoder LLM&apos;s config.json (num_hidden_layers, num_attention_heads, hidden_size).</source>
        <translation>规划器需要解码器 LLM 的 config.json（num_hidden_layers、num_attention_heads、hidden_size）。</translation>
    </message>
    <message>
        <source>Re-download the model; a .safetensors file is damaged.</source>
        <translation>请重新下载模型；有一个 .safetensors 文件已损坏。</translation>
    </message>
    <message>
        <source>{0} is too short to be a safetensors file.</source>
        <translation>{0} 太短，不可能是 safetensors 文件。</translation>
    </message>
    <message>
        <source>{0} is not a safetensors file (header length {1}).</source>
        <translation>{0} 不是 safetensors 文件（文件头长度 {1}）。</translation>
    </message>
    <message>
        <source>{0} is truncated inside its safetensors header.</source>
        <translation>{0} 在 safetensors 文件头内被截断。</translation>
    </message>
    <message>
        <source>{0} is truncated: its tensors end past the end of the file.</source>
        <translation>{0} 已被截断：其张量超出了文件末尾。</translation>
    </message>
    <message>
        <source>{0} has an unreadable safetensors header.</source>
        <translation>{0} 的 safetensors 文件头无法读取。</translation>
    </message>
    <message>
        <source>{0}: tensor {1} has a malformed safetensors entry.</source>
        <translation>{0}：张量 {1} 的 safetensors 条目格式错误。</translation>
    </message>
    <message>
        <source>the magic</source>
        <translation>文件标识</translation>
    </message>
    <message>
        <source>the version</source>
        <translation>版本号</translation>
    </message>
    <message>
        <source>the tensor count</source>
        <translation>张量数</translation>
    </message>
    <message>
        <source>the key/value count</source>
        <translation>键值对数</translation>
    </message>
    <message>
        <source>a key</source>
        <translation>一个键</translation>
    </message>
    <message>
        <source>a tensor name</source>
        <translation>一个张量名</translation>
    </message>
    <message>
        <source>the element type of {0}</source>
        <translation>{0} 的元素类型</translation>
    </message>
    <message>
        <source>the dimension count of {0}</source>
        <translation>{0} 的维数</translation>
    </message>
    <message>
        <source>the length of {0}</source>
        <translation>{0} 的长度</translation>
    </message>
    <message>
        <source>the shape of {0}</source>
        <translation>{0} 的形状</translation>
    </message>
    <message>
        <source>the offset of {0}</source>
        <translation>{0} 的偏移量</translation>
    </message>
    <message>
        <source>the type of {0}</source>
        <translation>{0} 的类型</translation>
    </message>
    <message>
        <source>the value of {0}</source>
        <translation>{0} 的值</translation>
    </message>
    <message>
        <source>{0} needs {1} bytes but only {2} are left</source>
        <translation>{0}需要 {1} 字节，但只剩 {2} 字节</translation>
    </message>
    <message>
        <source>the file ended inside {0}</source>
        <translation>文件在读取{0}时提前结束</translation>
    </message>
    <message>
        <source>{0} claims {1} bytes but only {2} are left</source>
        <translation>{0}声称有 {1} 字节，但只剩 {2} 字节</translation>
    </message>
    <message>
        <source>not a GGUF file (no GGUF magic)</source>
        <translation>不是 GGUF 文件（没有 GGUF 文件标识）</translation>
    </message>
    <message>
        <source>GGUF version {0} is not supported</source>
        <translation>不支持 GGUF 版本 {0}</translation>
    </message>
    <message>
        <source>the header claims {0} key/values, more than the file can hold</source>
        <translation>文件头声称有 {0} 个键值对，超过了文件能容纳的数量</translation>
    </message>
    <message>
        <source>the header claims {0} tensors, more than the file can hold</source>
        <translation>文件头声称有 {0} 个张量，超过了文件能容纳的数量</translation>
    </message>
    <message>
        <source>a key is longer than {0} bytes</source>
        <translation>有一个键超过 {0} 字节</translation>
    </message>
    <message>
        <source>general.alignment is {0}, not a power of two</source>
        <translation>general.alignment 为 {0}，不是 2 的幂</translation>
    </message>
    <message>
        <source>{0} has unknown value type {1}</source>
        <translation>{0} 的值类型 {1} 未知</translation>
    </message>
    <message>
        <source>{0} claims {1} items, more than the file holds</source>
        <translation>{0} 声称有 {1} 项，超过了文件中的内容</translation>
    </message>
    <message>
        <source>{0} claims {1} strings, more than the file holds</source>
        <translation>{0} 声称有 {1} 个字符串，超过了文件中的内容</translation>
    </message>
    <message>
        <source>{0} is an array of type {1}, which this reader does not accept</source>
        <translation>{0} 是类型为 {1} 的数组，本读取器不接受</translation>
    </message>
    <message>
        <source>a tensor name is longer than {0} bytes</source>
        <translation>有一个张量名超过 {0} 字节</translation>
    </message>
    <message>
        <source>tensor {0} has {1} dimensions (1 to {2} allowed)</source>
        <translation>张量 {0} 有 {1} 维（只允许 1 到 {2} 维）</translation>
    </message>
</context>
<context>
    <name>ModelLoader</name>
    <message>
        <source>unexpected error: {0}</source>
        <translation>意外错误：{0}</translation>
    </message>
</context>
<context>
    <name>ModelManagerDialog</name>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Catalog</source>
        <translation>目录</translation>
    </message>
    <message>
        <source>On this computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Models run on this computer. Downloads come from the Hugging Face hub, a mirror or ModelScope (Settings &gt; Download source); nothing you type is sent anywhere.</source>
        <translation>模型在本机上运行。下载来自 Hugging Face、镜像站或 ModelScope（设置 &gt; 下载来源）；你输入的内容不会发送到任何地方。</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>{0} is downloaded and verified.</source>
        <translation>{0} 已下载并通过校验。</translation>
    </message>
    <message>
        <source>The download of {0} failed: {1}</source>
        <translation>{0} 下载失败：{1}</translation>
    </message>
    <message>
        <source>The download of {0} was cancelled.</source>
        <translation>{0} 的下载已取消。</translation>
    </message>
    <message>
        <source>Downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>Loading {0}…</source>
        <translation>正在加载 {0}…</translation>
    </message>
    <message>
        <source>Another model is loading; choose this one again when it has finished.</source>
        <translation>另一个模型正在加载；加载完成后请再选择此模型。</translation>
    </message>
    <message>
        <source>{0} is loaded and ready.</source>
        <translation>{0} 已加载，可以使用。</translation>
    </message>
    <message>
        <source>{0} could not be loaded: {1}</source>
        <translation>无法加载 {0}：{1}</translation>
    </message>
    <message>
        <source>Added {0}.</source>
        <translation>已添加 {0}。</translation>
    </message>
    <message>
        <source>{0} was removed.</source>
        <translation>{0} 已移除。</translation>
    </message>
    <message>
        <source>Add a GGUF model</source>
        <translation>添加 GGUF 模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Add a Hugging Face model folder</source>
        <translation>添加 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>Delete {0}? Its files are deleted from this computer.</source>
        <translation>删除 {0}？它的文件将从本机上删除。</translation>
    </message>
    <message>
        <source>Remove {0} from the list? Your file stays where it is.</source>
        <translation>从列表中移除 {0}？你的文件会保留在原处。</translation>
    </message>
    <message>
        <source>Delete model</source>
        <translation>删除模型</translation>
    </message>
</context>
<context>
    <name>ModelPlacement</name>
    <message>
        <source>It runs in a process of its own, as asked.</source>
        <translation>它按要求在独立进程中运行。</translation>
    </message>
    <message>
        <source>It runs in the app&apos;s process, as asked.</source>
        <translation>它按要求在应用进程中运行。</translation>
    </message>
    <message>
        <source>It runs in a process of its own: llama.cpp here is a GPU build, which cannot share a process with the embedding model&apos;s GPU code.</source>
        <translation>它在独立进程中运行：此处的 llama.cpp 是 GPU 版本，无法与嵌入模型的 GPU 代码共用一个进程。</translation>
    </message>
    <message>
        <source>It runs in the app&apos;s process: llama.cpp here has no GPU backend that could clash with it.</source>
        <translation>它在应用进程中运行：此处的 llama.cpp 没有可能与它冲突的 GPU 后端。</translation>
    </message>
</context>
<context>
    <name>ModelRecommendation</name>
    <message>
        <source>The largest model in the catalog that fits this computer with room to spare and still answers faster than you read ({0}). {1}</source>
        <translation>目录中能宽裕地装进这台电脑、且回答速度仍快于阅读速度的最大模型（{0}）。{1}</translation>
    </message>
    <message>
        <source>The fastest model that fits this computer ({0}); answers will still come slowly here. {1}</source>
        <translation>能装进这台电脑的最快模型（{0}）；不过在这台电脑上回答仍会较慢。{1}</translation>
    </message>
    <message>
        <source>Its speed here is a guess: this computer&apos;s memory bandwidth is not known.</source>
        <translation>这里的速度只是估计：不知道这台电脑的内存带宽。</translation>
    </message>
    <message>
        <source>At most {0:.0f} tokens per second here.</source>
        <translation>在这里每秒最多 {0:.0f} 个词元。</translation>
    </message>
</context>
<context>
    <name>ModelStatus</name>
    <message>
        <source>Model status</source>
        <translation>模型状态</translation>
    </message>
    <message>
        <source>Model loading progress</source>
        <translation>模型加载进度</translation>
    </message>
    <message>
        <source>No model loaded. Use File › Load model… to choose one.</source>
        <translation>未加载模型。请用“文件 › 加载模型…”选择一个。</translation>
    </message>
    <message>
        <source>Loading {0}…</source>
        <translation>正在加载 {0}…</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <source>Loading</source>
        <translation>正在加载</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Model state</source>
        <translation>模型状态</translation>
    </message>
    <message>
        <source>Loading {0}: {1}…</source>
        <translation>正在加载 {0}：{1}…</translation>
    </message>
    <message>
        <source>a remote server</source>
        <translation>远程服务器</translation>
    </message>
    <message>
        <source>1 chat</source>
        <translation>1 个对话</translation>
    </message>
    <message>
        <source>{0} chats</source>
        <translation>{0} 个对话</translation>
    </message>
    <message>
        <source>Ready: {0} on {1} · {2} tokens × {3}</source>
        <translation>就绪：{0}，运行于 {1} · {2} 词元 × {3}</translation>
    </message>
    <message>
        <source>Loaded in {0:.1f} s</source>
        <translation>加载用时 {0:.1f} 秒</translation>
    </message>
    <message>
        <source>Backend: {0} ({1})</source>
        <translation>后端：{0}（{1}）</translation>
    </message>
    <message>
        <source> ({0})</source>
        <translation>（{0}）</translation>
    </message>
    <message>
        <source>Model failed to load: {0}</source>
        <translation>模型加载失败：{0}</translation>
    </message>
</context>
<context>
    <name>ModelTexts</name>
    <message>
        <source>Fits</source>
        <translation>合适</translation>
    </message>
    <message>
        <source>Tight</source>
        <translation>偏紧</translation>
    </message>
    <message>
        <source>Too big</source>
        <translation>太大</translation>
    </message>
    <message>
        <source>Needs vLLM</source>
        <translation>需要 vLLM</translation>
    </message>
    <message>
        <source>Fits at its {0} maximum</source>
        <translation>合适（按其 {0} 上限）</translation>
    </message>
    <message>
        <source>Tight at its {0} maximum</source>
        <translation>偏紧（按其 {0} 上限）</translation>
    </message>
    <message>
        <source>Too big even at its {0} maximum</source>
        <translation>太大（即使按其 {0} 上限）</translation>
    </message>
    <message>
        <source>≤ {0} tok/s · slow</source>
        <translation>≤ {0} 词元/秒 · 慢</translation>
    </message>
    <message>
        <source>≤ {0} tok/s · part on CPU</source>
        <translation>≤ {0} 词元/秒 · 部分在 CPU</translation>
    </message>
    <message>
        <source>≤ {0} tok/s</source>
        <translation>≤ {0} 词元/秒</translation>
    </message>
    <message>
        <source>Its speed here is not known: the machine&apos;s memory bandwidth is not known.</source>
        <translation>无法估计它在这里的速度：不知道这台机器的内存带宽。</translation>
    </message>
    <message>
        <source>Writes at most {0} tokens a second here: each token reads {1} from memory, at {2} GB/s. Real speed is lower.</source>
        <translation>在这里每秒最多生成 {0} 个词元：每个词元要从内存读取 {1}，内存带宽 {2} GB/s。实际速度会更低。</translation>
    </message>
    <message>
        <source>{0} of its layers stay in system memory, which is slower than the GPU&apos;s: expect much less.</source>
        <translation>它有 {0} 层留在系统内存中，系统内存比 GPU 显存慢：实际速度会低得多。</translation>
    </message>
    <message>
        <source>Slower than people read: answers will come word by word.</source>
        <translation>比人的阅读速度还慢：回答会一个字一个字地出现。</translation>
    </message>
    <message>
        <source>{0} GiB</source>
        <translation>{0} GiB</translation>
    </message>
    <message>
        <source>{0} ({1} active)</source>
        <translation>{0}（激活 {1}）</translation>
    </message>
    <message>
        <source>1 chat</source>
        <translation>1 个对话</translation>
    </message>
    <message>
        <source>{0} parallel chats</source>
        <translation>{0} 个并行对话</translation>
    </message>
    <message>
        <source>Hugging Face models run with vLLM, which needs Linux and a GPU that shares system memory. Use a GGUF variant on this machine.</source>
        <translation>Hugging Face 格式的模型由 vLLM 运行，需要 Linux 和与系统共享内存的 GPU。在本机上请使用 GGUF 版本。</translation>
    </message>
    <message>
        <source>Needs {0} of the {1} available for {2} tokens × {3}.</source>
        <translation>{2} 词元 × {3} 需要 {0}，可用 {1}。</translation>
    </message>
    <message>
        <source>It was trained for at most {0} tokens, so it is judged at that length.</source>
        <translation>它最多训练到 {0} 个词元，因此按这个长度评估。</translation>
    </message>
    <message>
        <source>It does not fit even with a short context.</source>
        <translation>即使上下文很短也装不下。</translation>
    </message>
    <message>
        <source>Little memory is left over; other programs may slow it down.</source>
        <translation>剩余内存很少；其他程序可能会拖慢它。</translation>
    </message>
    <message>
        <source>Longest context that fits: {0} tokens.</source>
        <translation>能装下的最长上下文：{0} 词元。</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <source>English</source>
        <translation>英语</translation>
    </message>
    <message>
        <source>French</source>
        <translation>法语</translation>
    </message>
    <message>
        <source>Spanish</source>
        <translation>西班牙语</translation>
    </message>
    <message>
        <source>Portuguese</source>
        <translation>葡萄牙语</translation>
    </message>
    <message>
        <source>German</source>
        <translation>德语</translation>
    </message>
    <message>
        <source>Italian</source>
        <translation>意大利语</translation>
    </message>
    <message>
        <source>Russian</source>
        <translation>俄语</translation>
    </message>
    <message>
        <source>Japanese</source>
        <translation>日语</translation>
    </message>
    <message>
        <source>Korean</source>
        <translation>韩语</translation>
    </message>
    <message>
        <source>Vietnamese</source>
        <translation>越南语</translation>
    </message>
    <message>
        <source>Thai</source>
        <translation>泰语</translation>
    </message>
    <message>
        <source>Arabic</source>
        <translation>阿拉伯语</translation>
    </message>
    <message>
        <source>Hindi</source>
        <translation>印地语</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>{0} +{1}</source>
        <translation>{0} 及另外 {1} 种</translation>
    </message>
    <message>
        <source>GGUF (llama.cpp)</source>
        <translation>GGUF（llama.cpp）</translation>
    </message>
    <message>
        <source>Hugging Face (vLLM)</source>
        <translation>Hugging Face（vLLM）</translation>
    </message>
    <message>
        <source>Asking the hub about the files…</source>
        <translation>正在向 Hub 查询文件信息…</translation>
    </message>
    <message>
        <source>Downloading…</source>
        <translation>正在下载…</translation>
    </message>
    <message>
        <source>Paused. The part already downloaded is kept.</source>
        <translation>已暂停。已下载的部分会保留。</translation>
    </message>
    <message>
        <source>Checking the download&apos;s checksum…</source>
        <translation>正在核对下载文件的校验和…</translation>
    </message>
    <message>
        <source>Downloaded and verified.</source>
        <translation>已下载并通过校验。</translation>
    </message>
    <message>
        <source>Download cancelled.</source>
        <translation>下载已取消。</translation>
    </message>
    <message>
        <source>The download failed: {0}</source>
        <translation>下载失败：{0}</translation>
    </message>
    <message>
        <source>{0} of {1}</source>
        <translation>{0} / {1}</translation>
    </message>
    <message>
        <source>{0}/s</source>
        <translation>{0}/秒</translation>
    </message>
    <message>
        <source>about {0} left</source>
        <translation>约剩 {0}</translation>
    </message>
    <message>
        <source>{0} memory ({1} free)</source>
        <translation>内存 {0}（空闲 {1}）</translation>
    </message>
    <message>
        <source>GPU {0} sharing that memory</source>
        <translation>GPU {0} 与之共享内存</translation>
    </message>
    <message>
        <source>GPU {0} with {1}</source>
        <translation>GPU {0}，显存 {1}</translation>
    </message>
    <message>
        <source>no GPU</source>
        <translation>无 GPU</translation>
    </message>
    <message>
        <source>{0}: {1}, {2}; runs models with {3}.</source>
        <translation>{0}：{1}，{2}；用 {3} 运行模型。</translation>
    </message>
    <message>
        <source>This machine: {0}, {1}; runs models with {2}.</source>
        <translation>本机：{0}，{1}；用 {2} 运行模型。</translation>
    </message>
</context>
<context>
    <name>PassagePopup</name>
    <message>
        <source>Open the file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>Copy path</source>
        <translation>复制路径</translation>
    </message>
    <message>
        <source>Passage</source>
        <translation>段落</translation>
    </message>
    <message>
        <source>{0} (the file is no longer there)</source>
        <translation>{0}（文件已不在原处）</translation>
    </message>
    <message>
        <source>No passage text was kept for this source.</source>
        <translation>此来源没有保存段落文字。</translation>
    </message>
    <message>
        <source>No program on this computer opens {0} files. Copy the path to open it another way.</source>
        <translation>本机没有能打开 {0} 文件的程序。请复制路径，用其他方式打开。</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
</context>
<context>
    <name>PathField</name>
    <message>
        <source>No path chosen</source>
        <translation>未选择路径</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Browse for {0}</source>
        <translation>浏览选择{0}</translation>
    </message>
    <message>
        <source>Choose a file or a folder</source>
        <translation>选择文件或文件夹</translation>
    </message>
    <message>
        <source>Choose a file…</source>
        <translation>选择文件…</translation>
    </message>
    <message>
        <source>Choose a folder…</source>
        <translation>选择文件夹…</translation>
    </message>
    <message>
        <source>Choose a file</source>
        <translation>选择文件</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Choose a folder</source>
        <translation>选择文件夹</translation>
    </message>
</context>
<context>
    <name>QDockWidget</name>
    <message>
        <source>Float</source>
        <translation>悬浮</translation>
    </message>
    <message>
        <source>Undocks and re-attaches the dock widget</source>
        <translation>悬浮和停靠可停靠部件</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Closes the dock widget</source>
        <translation>关闭可停靠部件</translation>
    </message>
</context>
<context>
    <name>QMenuBar</name>
    <message>
        <source>More menus</source>
        <translation>更多菜单</translation>
    </message>
</context>
<context>
    <name>SettingEditor</name>
    <message>
        <source>Allowed: {0}.</source>
        <translation>允许的值：{0}。</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Show {0}</source>
        <translation>显示{0}</translation>
    </message>
    <message>
        <source>Show or hide {0}</source>
        <translation>显示或隐藏{0}</translation>
    </message>
</context>
<context>
    <name>SettingValues</name>
    <message>
        <source>is not smaller than {0} = {1}</source>
        <translation>不小于 {0} = {1}</translation>
    </message>
    <message>
        <source>{0} = {1} {2}</source>
        <translation>{0} = {1} {2}</translation>
    </message>
    <message>
        <source>{0} {1}</source>
        <translation>{0} {1}</translation>
    </message>
    <message>
        <source>Change one of: {0}.</source>
        <translation>请修改其中之一：{0}。</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>开启或关闭</translation>
    </message>
    <message>
        <source>a whole number</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>text in quotes</source>
        <translation>带引号的文本</translation>
    </message>
    <message>
        <source>is not one of: {0}</source>
        <translation>不是以下之一：{0}</translation>
    </message>
    <message>
        <source>one of: {0}</source>
        <translation>以下之一：{0}</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>an http:// or https:// address</source>
        <translation>http:// 或 https:// 地址</translation>
    </message>
    <message>
        <source>{0} (or &quot;&quot; for none)</source>
        <translation>{0}（或留空 &quot;&quot; 表示无）</translation>
    </message>
    <message>
        <source>{0} from {1} to {2}</source>
        <translation>{1} 到 {2} 之间的{0}</translation>
    </message>
    <message>
        <source>{0} of at least {1}</source>
        <translation>至少为 {1} 的{0}</translation>
    </message>
    <message>
        <source>{0} of at most {1}</source>
        <translation>至多为 {1} 的{0}</translation>
    </message>
    <message>
        <source>{0}, or {1}</source>
        <translation>{0}，或 {1}</translation>
    </message>
    <message>
        <source>is not a whole number</source>
        <translation>不是整数</translation>
    </message>
    <message>
        <source>is not a finite number</source>
        <translation>不是有限的数</translation>
    </message>
    <message>
        <source>is {0}, not {1}</source>
        <translation>是{0}，而不是{1}</translation>
    </message>
    <message>
        <source>is below the minimum {0} (or {1})</source>
        <translation>低于最小值 {0}（或 {1}）</translation>
    </message>
    <message>
        <source>is below the minimum {0}</source>
        <translation>低于最小值 {0}</translation>
    </message>
    <message>
        <source>is above the maximum {0} (or {1})</source>
        <translation>高于最大值 {0}（或 {1}）</translation>
    </message>
    <message>
        <source>is above the maximum {0}</source>
        <translation>高于最大值 {0}</translation>
    </message>
    <message>
        <source>contains bytes that are not UTF-8 text</source>
        <translation>包含不是 UTF-8 文本的字节</translation>
    </message>
    <message>
        <source>contains a control character (such as a line break)</source>
        <translation>包含控制字符（例如换行符）</translation>
    </message>
    <message>
        <source>is longer than {0} characters</source>
        <translation>超过了 {0} 个字符</translation>
    </message>
    <message>
        <source>is empty, but a value is required</source>
        <translation>为空，但必须填写</translation>
    </message>
    <message>
        <source>is not an http:// or https:// address</source>
        <translation>不是 http:// 或 https:// 地址</translation>
    </message>
    <message>
        <source>Allowed: {0}.</source>
        <translation>允许的值：{0}。</translation>
    </message>
    <message>
        <source>true/false</source>
        <translation>布尔值</translation>
    </message>
    <message>
        <source>a decimal number</source>
        <translation>小数</translation>
    </message>
    <message>
        <source>a table</source>
        <translation>表</translation>
    </message>
    <message>
        <source>an array</source>
        <translation>数组</translation>
    </message>
    <message>
        <source>a date/time</source>
        <translation>日期/时间</translation>
    </message>
    <message>
        <source>a {0}</source>
        <translation>{0}</translation>
    </message>
    <message>
        <source>{0} for {1}</source>
        <translation>{0} 表示{1}</translation>
    </message>
    <message>
        <source>{0} ({1})</source>
        <translation>{0}（{1}）</translation>
    </message>
    <message>
        <source>{0}. {1}</source>
        <translation>{0}。{1}</translation>
    </message>
    <message>
        <source>{0}.</source>
        <translation>{0}。</translation>
    </message>
</context>
<context>
    <name>SettingsDeclaration</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Which language model UniDesk runs.</source>
        <translation>UniDesk 运行哪个语言模型。</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>How the model is run: backend, memory, speed.</source>
        <translation>模型如何运行：后端、内存、速度。</translation>
    </message>
    <message>
        <source>Knowledge base</source>
        <translation>知识库</translation>
    </message>
    <message>
        <source>How documents are split, embedded and searched.</source>
        <translation>文档如何切分、嵌入和检索。</translation>
    </message>
    <message>
        <source>Answers</source>
        <translation>回答</translation>
    </message>
    <message>
        <source>Default sampling for new answers.</source>
        <translation>新回答的默认采样方式。</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Language and look of the window.</source>
        <translation>窗口的语言和外观。</translation>
    </message>
    <message>
        <source>Local API</source>
        <translation>本地 API</translation>
    </message>
    <message>
        <source>An OpenAI-compatible server on 127.0.0.1 for other tools.</source>
        <translation>在 127.0.0.1 上为其他工具提供的 OpenAI 兼容服务器。</translation>
    </message>
    <message>
        <source>Diagnostics</source>
        <translation>诊断</translation>
    </message>
    <message>
        <source>What UniDesk writes to its log, for bug reports.</source>
        <translation>UniDesk 写入日志的内容，用于报告问题。</translation>
    </message>
    <message>
        <source>The .gguf file or Hugging Face model folder to load. Empty: no model chosen yet.</source>
        <translation>要加载的 .gguf 文件或 Hugging Face 模型文件夹。留空：尚未选择模型。</translation>
    </message>
    <message>
        <source>Models folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>Where downloaded models are stored. Empty: the app&apos;s data folder (models/ inside it). Models already downloaded stay where they are.</source>
        <translation>下载的模型存放的位置。留空：应用的数据文件夹（其中的 models/）。已下载的模型保留在原处。</translation>
    </message>
    <message>
        <source>Download source</source>
        <translation>下载来源</translation>
    </message>
    <message>
        <source>Where models are downloaded from. Automatic tries the Hugging Face hub, then the mirror, then ModelScope (for models published there), and says which one failed; a download that stopped resumes from the next source.</source>
        <translation>从哪里下载模型。自动：依次尝试 Hugging Face、镜像站、ModelScope（仅限在那里发布的模型），并说明哪个来源失败；中断的下载会从下一个来源继续。</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Hugging Face hub</source>
        <translation>Hugging Face</translation>
    </message>
    <message>
        <source>Mirror</source>
        <translation>镜像站</translation>
    </message>
    <message>
        <source>ModelScope</source>
        <translation>ModelScope（魔搭）</translation>
    </message>
    <message>
        <source>Mirror address</source>
        <translation>镜像站地址</translation>
    </message>
    <message>
        <source>A mirror of the Hugging Face hub (the same addresses as HF_ENDPOINT uses), tried after the hub.</source>
        <translation>Hugging Face 的镜像站（地址格式与 HF_ENDPOINT 相同），在 Hugging Face 之后尝试。</translation>
    </message>
    <message>
        <source>Who runs the model. Automatic picks vLLM on unified-memory Linux machines (DGX Spark, Grace-Hopper, Jetson) and llama.cpp everywhere else; vLLM runs Hugging Face models wherever vLLM is installed on Linux (an NVIDIA GPU, or vLLM&apos;s CPU build); Remote sends requests to an OpenAI-compatible server.</source>
        <translation>由谁运行模型。“自动”在统一内存的 Linux 机器（DGX Spark、Grace-Hopper、Jetson）上选择 vLLM，其他情况选择 llama.cpp；“vLLM”在装有 vLLM 的任何 Linux 机器上运行 Hugging Face 模型（NVIDIA GPU，或 vLLM 的 CPU 版本）；“远程服务器”把请求发送到 OpenAI 兼容的服务器。</translation>
    </message>
    <message>
        <source>vLLM</source>
        <translation>vLLM</translation>
    </message>
    <message>
        <source>llama.cpp</source>
        <translation>llama.cpp</translation>
    </message>
    <message>
        <source>Remote server</source>
        <translation>远程服务器</translation>
    </message>
    <message>
        <source>Remote server address</source>
        <translation>远程服务器地址</translation>
    </message>
    <message>
        <source>Base URL of an OpenAI-compatible server, e.g. http://192.168.1.20:8000/v1. Used only when the backend is Remote.</source>
        <translation>OpenAI 兼容服务器的基础 URL，例如 http://192.168.1.20:8000/v1。仅在后端为“远程服务器”时使用。</translation>
    </message>
    <message>
        <source>Remote API key</source>
        <translation>远程 API 密钥</translation>
    </message>
    <message>
        <source>Key sent to the remote server, if it needs one. Stored in the settings file (readable only by you) and masked wherever it is shown.</source>
        <translation>发送给远程服务器的密钥（如果需要）。保存在设置文件中（只有你能读取），显示时一律遮盖。</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>上下文长度</translation>
    </message>
    <message>
        <source>Longest conversation (prompt plus answer) one chat can hold. 0: the planner picks the longest that fits in memory alongside the other settings.</source>
        <translation>一个对话能容纳的最长内容（提示加回答）。0：由规划器在满足其他设置的前提下选择内存能容纳的最大值。</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>Parallel chats</source>
        <translation>并行对话</translation>
    </message>
    <message>
        <source>Memory utilisation</source>
        <translation>内存使用比例</translation>
    </message>
    <message>
        <source>Fraction of the machine&apos;s memory (GPU memory, or the whole pool on unified-memory machines) the engine may use. 0: the planner budgets from what is actually free.</source>
        <translation>引擎可使用的内存比例（显存；统一内存机器上则是整个内存池）。0：由规划器按实际空闲内存来分配。</translation>
    </message>
    <message>
        <source>Reserve for the system</source>
        <translation>为系统保留</translation>
    </message>
    <message>
        <source>Memory always left free for the operating system and your other programs.</source>
        <translation>始终留给操作系统和你的其他程序的内存。</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>KV-cache type</source>
        <translation>KV 缓存类型</translation>
    </message>
    <message>
        <source>Precision of the attention cache. q8_0/fp8 halve its memory and q4_0 quarters it, at a small cost in quality. Automatic: f16 (or what the model and backend prefer).</source>
        <translation>注意力缓存的精度。q8_0/fp8 让其内存减半，q4_0 减为四分之一，质量略有损失。自动：f16（或模型和后端偏好的类型）。</translation>
    </message>
    <message>
        <source>f16</source>
        <translation>f16</translation>
    </message>
    <message>
        <source>bf16</source>
        <translation>bf16</translation>
    </message>
    <message>
        <source>q8_0</source>
        <translation>q8_0</translation>
    </message>
    <message>
        <source>q4_0</source>
        <translation>q4_0</translation>
    </message>
    <message>
        <source>fp8</source>
        <translation>fp8</translation>
    </message>
    <message>
        <source>KV block size</source>
        <translation>KV 块大小</translation>
    </message>
    <message>
        <source>Tokens per KV-cache block (vLLM paged attention). 0: the backend&apos;s default.</source>
        <translation>每个 KV 缓存块的词元数（vLLM 分页注意力）。0：使用后端的默认值。</translation>
    </message>
    <message>
        <source>16</source>
        <translation>16</translation>
    </message>
    <message>
        <source>32</source>
        <translation>32</translation>
    </message>
    <message>
        <source>64</source>
        <translation>64</translation>
    </message>
    <message>
        <source>128</source>
        <translation>128</translation>
    </message>
    <message>
        <source>256</source>
        <translation>256</translation>
    </message>
    <message>
        <source>Prefix caching</source>
        <translation>前缀缓存</translation>
    </message>
    <message>
        <source>Reuse the cache of a prompt&apos;s start that was seen before (system prompt, documents), so follow-up questions start answering sooner.</source>
        <translation>复用之前见过的提示开头部分（系统提示词、文档）的缓存，让后续问题更快开始回答。</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Warm up after loading</source>
        <translation>加载后预热</translation>
    </message>
    <message>
        <source>Run one short request right after loading so the first real answer does not pay for kernel compilation and graph capture.</source>
        <translation>加载后立即运行一个简短请求，这样第一个真正的回答就不必承担内核编译和计算图捕获的开销。</translation>
    </message>
    <message>
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <source>llama.cpp only: how many layers to put on the GPU. -1: all that fit (automatic); 0: run on the CPU only; N: the first N layers, the rest on the CPU.</source>
        <translation>仅限 llama.cpp：把多少层放到 GPU 上。-1：所有能放下的层（自动）；0：只在 CPU 上运行；N：前 N 层，其余在 CPU 上。</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <source>Threads for work done on the CPU. 0: one per physical core.</source>
        <translation>在 CPU 上工作的线程数。0：每个物理核心一个。</translation>
    </message>
    <message>
        <source>Flash attention</source>
        <translation>Flash Attention</translation>
    </message>
    <message>
        <source>Use the fused attention kernel. Automatic: on where the backend supports it.</source>
        <translation>使用融合的注意力内核。自动：后端支持时开启。</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Speculative decoding</source>
        <translation>推测解码</translation>
    </message>
    <message>
        <source>vLLM only: guess several tokens ahead and let the model check them in one step. N-gram looks the guesses up in the prompt, which pays off when answers quote your documents; Draft model uses a small model of the same family. Off: one token per step.</source>
        <translation>仅限 vLLM：预先猜测几个词元，再由模型一步验证。N-gram 从提示中查找猜测，适合回答大量引用文档的情况；“草稿模型”使用同系列的小模型。关闭：每步生成一个词元。</translation>
    </message>
    <message>
        <source>N-gram (prompt lookup)</source>
        <translation>N-gram（提示查找）</translation>
    </message>
    <message>
        <source>Draft model</source>
        <translation>草稿模型</translation>
    </message>
    <message>
        <source>Speculative tokens</source>
        <translation>推测词元数</translation>
    </message>
    <message>
        <source>vLLM only: how many tokens are guessed ahead per step when speculative decoding is on.</source>
        <translation>仅限 vLLM：开启推测解码时，每步预先猜测多少个词元。</translation>
    </message>
    <message>
        <source>vLLM only: the small Hugging Face model folder that drafts tokens when speculative decoding uses a draft model. It must share the main model&apos;s tokenizer.</source>
        <translation>仅限 vLLM：推测解码使用草稿模型时，用来起草词元的小型 Hugging Face 模型文件夹。它必须与主模型使用相同的分词器。</translation>
    </message>
    <message>
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <source>Sentence-embedding model used to index documents: a name or a local folder. Automatic picks a multilingual model for this computer (multilingual-e5-small without a GPU, a stronger one with a GPU); the knowledge panel offers to download it once, and until then the bundled English all-MiniLM-L6-v2 is used. Changing it re-embeds the knowledge base in the background; search uses the old vectors until the new ones are complete.</source>
        <translation>用于索引文档的句向量模型：名称或本地文件夹。“自动”会为本机选择多语言模型（无 GPU 时用 multilingual-e5-small，有 GPU 时用更强的模型），知识库面板会提示下载一次；下载完成前使用内置的英文模型 all-MiniLM-L6-v2。更换后知识库在后台重新生成向量，完成之前搜索继续使用旧向量。</translation>
    </message>
    <message>
        <source>Chunk size</source>
        <translation>文本块大小</translation>
    </message>
    <message>
        <source>Length of the pieces documents are cut into before indexing.</source>
        <translation>索引前把文档切成的文本块长度。</translation>
    </message>
    <message>
        <source>Indexing</source>
        <translation>索引</translation>
    </message>
    <message>
        <source>Chunk overlap</source>
        <translation>文本块重叠</translation>
    </message>
    <message>
        <source>How much each piece repeats of the one before it, so a sentence cut in two is still found. Must be smaller than the chunk size.</source>
        <translation>每个文本块与前一块重复的长度，这样被切成两半的句子仍能被找到。必须小于文本块大小。</translation>
    </message>
    <message>
        <source>Passages per question</source>
        <translation>每个问题的段落数</translation>
    </message>
    <message>
        <source>How many passages from your documents are given to the model with each question.</source>
        <translation>每个问题随附给模型的文档段落数。</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>检索</translation>
    </message>
    <message>
        <source>Rerank passages</source>
        <translation>段落重排序</translation>
    </message>
    <message>
        <source>Reranker model</source>
        <translation>重排序模型</translation>
    </message>
    <message>
        <source>Cross-encoder used when reranking is on: a name in the local model cache or a folder. If it is not on this computer, passages are not reranked (search still works).</source>
        <translation>开启重排序时使用的交叉编码器：本地模型缓存中的名称或文件夹。如果本机上没有，就不重排序（检索仍然可用）。</translation>
    </message>
    <message>
        <source>Embedding batch</source>
        <translation>嵌入批大小</translation>
    </message>
    <message>
        <source>How many pieces are embedded at once while indexing. Larger batches keep a GPU busier; on a CPU 32-64 is best. Finished documents are saved after every batch.</source>
        <translation>索引时一次嵌入多少个文本块。批越大，GPU 越忙；在 CPU 上 32-64 最好。每批完成后都会保存已完成的文档。</translation>
    </message>
    <message>
        <source>Read the text of scanned PDF pages and of pictures (PNG, JPEG) you add, with text recognition (OCR) for Chinese and English that runs on this computer. It runs in the background and takes several seconds per page on a typical CPU. Off: such pages are left out.</source>
        <translation>用在本机运行的中英文文字识别（OCR）读取扫描版 PDF 页面和您添加的图片（PNG、JPEG）中的文字。它在后台运行，在普通 CPU 上每页需要数秒。关闭时跳过这些页面。</translation>
    </message>
    <message>
        <source>Reading one file, or one part of a big file, (before its text is embedded) is stopped after this long; the file is listed as failed and not tried again until it changes. Each scanned page read by text recognition has this long of its own: a page that takes longer is skipped, the rest is kept.</source>
        <translation>读取单个文件（或大文件的一部分）（在嵌入其文本之前）超过此时长即被停止；该文件列为失败，在它改变之前不会再尝试。文字识别读取的每个扫描页各有这么长的时间：超时的页面被跳过，其余内容保留。</translation>
    </message>
    <message>
        <source>Pause indexing while answering</source>
        <translation>回答时暂停索引</translation>
    </message>
    <message>
        <source>While an answer is being written (in the window or through the local API), indexing waits between batches so the answer is not slowed down; it carries on when the answer is done.</source>
        <translation>在生成回答时（无论在窗口中还是通过本地 API），索引会在批次之间等待，以免拖慢回答；回答完成后索引会继续。</translation>
    </message>
    <message>
        <source>Check folders every</source>
        <translation>文件夹检查间隔</translation>
    </message>
    <message>
        <source>How often folders you added are checked for new, changed and deleted files. 0: never (add them again to pick up changes).</source>
        <translation>多久检查一次你添加的文件夹中新增、修改和删除的文件。0：从不（要同步更改请重新添加）。</translation>
    </message>
    <message>
        <source>Detailed log</source>
        <translation>详细日志</translation>
    </message>
    <message>
        <source>Write debugging details (including llama.cpp&apos;s own messages) to the log file, for a bug report. Off: the log keeps what matters and stays small. Takes effect at the next start.</source>
        <translation>把调试细节（包括 llama.cpp 自己的消息）写入日志文件，用于报告问题。关闭：日志只记录要紧的内容，保持小巧。下次启动时生效。</translation>
    </message>
    <message>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>How many answers can be generated at the same time. Each one needs its own KV cache, so more parallel chats leave room for a shorter context. 0: the planner picks from the memory and the backend (several on a GPU or unified memory, fewer on a small CPU).</source>
        <translation>可以同时生成多少个回答。每个回答都需要自己的 KV 缓存，因此并行对话越多，可用的上下文越短。0：由规划器根据内存和后端选择（GPU 或统一内存上多个，小型 CPU 上较少）。</translation>
    </message>
    <message>
        <source>Re-order the found passages with a second model before answering, where it pays: the top 40 on a GPU, the top 10 on a CPU with 4 or more cores, none on smaller CPUs or when the reranker model is not on this computer.</source>
        <translation>回答前用第二个模型对找到的段落重新排序（仅在划算时）：GPU 上排前 40 段，4 核及以上 CPU 上排前 10 段，较小的 CPU 或本机没有重排序模型时不排序。</translation>
    </message>
    <message>
        <source>Recognise scanned pages</source>
        <translation>识别扫描页面</translation>
    </message>
    <message>
        <source>Largest file</source>
        <translation>最大文件</translation>
    </message>
    <message>
        <source>Files bigger than this are not added to the knowledge base (they are listed as failed, with the reason), so one huge file cannot fill the memory or the disk.</source>
        <translation>大于此大小的文件不会加入知识库（会列为失败并注明原因），以免一个巨大的文件占满内存或磁盘。</translation>
    </message>
    <message>
        <source>MB</source>
        <translation>MB</translation>
    </message>
    <message>
        <source>Time to read one file</source>
        <translation>读取单个文件的时限</translation>
    </message>
    <message>
        <source>Memory to read one file</source>
        <translation>读取单个文件的内存</translation>
    </message>
    <message>
        <source>Files are read in a separate process that may use at most this much memory; a file that needs more is listed as failed instead of slowing down or stopping the app.</source>
        <translation>文件在单独的进程中读取，该进程最多使用这么多内存；需要更多内存的文件会列为失败，而不会拖慢或中止应用。</translation>
    </message>
    <message>
        <source>Never</source>
        <translation>从不</translation>
    </message>
    <message>
        <source>Shared vector server</source>
        <translation>共享向量服务器</translation>
    </message>
    <message>
        <source>Address of a chromadb server (e.g. http://192.168.1.20:8000) that keeps the document vectors, for a team sharing one server. Empty: the built-in store in your data folder.</source>
        <translation>保存文档向量的 chromadb 服务器地址（例如 http://192.168.1.20:8000），供共用一台服务器的团队使用。留空：使用数据文件夹中的内置存储。</translation>
    </message>
    <message>
        <source>Storage</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Randomness of answers: 0 always picks the likeliest word, higher is more varied.</source>
        <translation>回答的随机程度：0 总是选择最可能的词，越高越多样。</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Pick only among the likeliest words whose probabilities add up to this.</source>
        <translation>只在概率累计到此值的最可能的词中挑选。</translation>
    </message>
    <message>
        <source>Longest answer</source>
        <translation>最长回答</translation>
    </message>
    <message>
        <source>An answer stops after this many tokens. 0: no limit other than the context length.</source>
        <translation>回答在达到这么多词元后停止。0：除上下文长度外没有限制。</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>无限制</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Language of the window. System: follow the operating system.</source>
        <translation>窗口的语言。系统：跟随操作系统。</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>English</source>
        <translation>English</translation>
    </message>
    <message>
        <source>简体中文</source>
        <translation>简体中文</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Light or dark window. System: follow the operating system.</source>
        <translation>浅色或深色窗口。系统：跟随操作系统。</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Local API server</source>
        <translation>本地 API 服务器</translation>
    </message>
    <message>
        <source>Serve an OpenAI-compatible API on 127.0.0.1 (this computer only) while UniDesk runs.</source>
        <translation>UniDesk 运行时在 127.0.0.1 上提供 OpenAI 兼容的 API（仅限本机）。</translation>
    </message>
    <message>
        <source>API port</source>
        <translation>API 端口</translation>
    </message>
    <message>
        <source>Port of the local API server.</source>
        <translation>本地 API 服务器的端口。</translation>
    </message>
    <message>
        <source>Did you mean {0}?</source>
        <translation>您是指 {0} 吗？</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>确定</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Restore defaults</source>
        <translation>恢复默认值</translation>
    </message>
    <message>
        <source>a remote server</source>
        <translation>远程服务器</translation>
    </message>
    <message>
        <source>Automatic picks {0}: {1}</source>
        <translation>自动选择 {0}：{1}</translation>
    </message>
    <message>
        <source>Runs on {0}: {1}</source>
        <translation>运行于 {0}：{1}</translation>
    </message>
    <message>
        <source>Cannot run this model: {0}</source>
        <translation>无法运行此模型：{0}</translation>
    </message>
    <message>
        <source>Automatic picks {0} on this machine: {1}</source>
        <translation>在本机上自动选择 {0}：{1}</translation>
    </message>
    <message>
        <source>Some settings are not valid; fix the fields marked in red first.</source>
        <translation>部分设置无效；请先修正标红的字段。</translation>
    </message>
</context>
<context>
    <name>SettingsFile</name>
    <message>
        <source>{0} is not UTF-8 text (byte 0x{1:02x} at position {2}); settings containing such bytes use their defaults.</source>
        <translation>{0} 不是 UTF-8 文本（位置 {2} 处的字节 0x{1:02x}）；含有此类字节的设置使用默认值。</translation>
    </message>
    <message>
        <source>{0} has a syntax error: {1}; using the defaults for all settings.</source>
        <translation>{0} 有语法错误：{1}；所有设置都使用默认值。</translation>
    </message>
    <message>
        <source>{0} was written by a newer UniDesk (file format {1}; this version knows format {2}): settings it knows were loaded, and the file will not be overwritten without asking.</source>
        <translation>{0} 由更新版本的 UniDesk 写入（文件格式 {1}；本版本只认识格式 {2}）：已加载本版本认识的设置，不经询问不会覆盖该文件。</translation>
    </message>
    <message>
        <source>version = {0} in {1} is not a format version (a whole number from 1); reading the file as format {2}.</source>
        <translation>{1} 中的 version = {0} 不是格式版本（从 1 起的整数）；按格式 {2} 读取该文件。</translation>
    </message>
    <message>
        <source>{0} = {1} should be a table of settings ([{0}]); ignored.</source>
        <translation>{0} = {1} 应当是设置表（[{0}]）；已忽略。</translation>
    </message>
    <message>
        <source>{0}; using the default {1}.</source>
        <translation>{0}；使用默认值 {1}。</translation>
    </message>
    <message>
        <source>{0}; using the default {1} for {2}.</source>
        <translation>{0}；{2} 使用默认值 {1}。</translation>
    </message>
    <message>
        <source>{0}; using the defaults for {1}.</source>
        <translation>{0}；{1} 使用默认值。</translation>
    </message>
    <message>
        <source>{0} is not known to this version of UniDesk; ignored.</source>
        <translation>此版本的 UniDesk 不认识 {0}；已忽略。</translation>
    </message>
    <message>
        <source>{0} is not a known setting; ignored.</source>
        <translation>{0} 不是已知的设置；已忽略。</translation>
    </message>
    <message>
        <source>{0} is not a known setting; ignored (did you mean {1}?).</source>
        <translation>{0} 不是已知的设置；已忽略（您是指 {1} 吗？）。</translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message>
        <source>Settings sections</source>
        <translation>设置分区</translation>
    </message>
    <message>
        <source>Show advanced settings</source>
        <translation>显示高级设置</translation>
    </message>
</context>
<context>
    <name>Shortcuts</name>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>Stop the answer</source>
        <translation>停止回答</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Go to the knowledge base</source>
        <translation>转到知识库</translation>
    </message>
</context>
<context>
    <name>SpeedGauge</name>
    <message>
        <source>Speed gauge</source>
        <translation>速度仪表</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Time to first token</source>
        <translation>首词元延迟</translation>
    </message>
    <message>
        <source>Prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>Bandwidth limit</source>
        <translation>带宽上限</translation>
    </message>
    <message>
        <source>Chats</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>{0} running, {1} waiting</source>
        <translation>{0} 个运行中，{1} 个等待中</translation>
    </message>
    <message>
        <source>Load a model to see its speed.</source>
        <translation>加载模型后即可看到速度。</translation>
    </message>
    <message>
        <source>KV cache, all chats: {0} of {1} cells in use.</source>
        <translation>KV 缓存（所有对话）：已用 {0} / {1} 个单元。</translation>
    </message>
    <message>
        <source>Cells of the model&apos;s KV cache holding text now, in every chat together: earlier prompts and answers are kept so a follow-up is not read again. The meter under the message box counts something else: the next prompt of the conversation on show, against one chat&apos;s context window.</source>
        <translation>模型 KV 缓存中当前存有文本的单元，所有对话合计：先前的提示和回答会被保留，以免追问时重新读取。消息框下方的计量条统计的是另一回事：当前对话的下一次提示，相对于单个对话的上下文窗口。</translation>
    </message>
    <message>
        <source>{0:.0f} ms</source>
        <translation>{0:.0f} 毫秒</translation>
    </message>
    <message>
        <source>{0:.2f} s</source>
        <translation>{0:.2f} 秒</translation>
    </message>
    <message>
        <source>{0} now</source>
        <translation>当前 {0}</translation>
    </message>
    <message>
        <source>{0}, last answer</source>
        <translation>{0}（上一个回答）</translation>
    </message>
    <message>
        <source>{0} ({1:.0f} % reached)</source>
        <translation>{0}（达到 {1:.0f}%）</translation>
    </message>
</context>
<context>
    <name>SpeedHistoryPlot</name>
    <message>
        <source>Decode speed history</source>
        <translation>解码速度历史</translation>
    </message>
    <message>
        <source>last {0:.0f} s</source>
        <translation>最近 {0:.0f} 秒</translation>
    </message>
    <message>
        <source>No decoding in the last minute</source>
        <translation>最近一分钟内没有解码</translation>
    </message>
</context>
<context>
    <name>StartupError</name>
    <message>
        <source>UniDesk cannot start</source>
        <translation>UniDesk 无法启动</translation>
    </message>
</context>
<context>
    <name>TextLists</name>
    <message>
        <source>{0}, {1}</source>
        <translation>{0}、{1}</translation>
    </message>
</context>
<context>
    <name>UncaughtErrorDialogs</name>
    <message>
        <source>Unexpected error</source>
        <translation>意外错误</translation>
    </message>
    <message>
        <source>Something went wrong: {0}</source>
        <translation>出错了：{0}</translation>
    </message>
    <message>
        <source>UniDesk keeps running; the details were written to {0}.</source>
        <translation>UniDesk 仍在运行；详细信息已写入 {0}。</translation>
    </message>
    <message>
        <source>{0} more errors happened since.</source>
        <translation>此后又发生了 {0} 个错误。</translation>
    </message>
</context>
<context>
    <name>Units</name>
    <message>
        <source>{0} s</source>
        <translation>{0} 秒</translation>
    </message>
    <message>
        <source>{0} min {1} s</source>
        <translation>{0} 分 {1} 秒</translation>
    </message>
    <message>
        <source>{0} h {1} min</source>
        <translation>{0} 小时 {1} 分</translation>
    </message>
</context>
<context>
    <name>WatchedFoldersView</name>
    <message>
        <source>Watched folders</source>
        <translation>监视的文件夹</translation>
    </message>
    <message>
        <source>New, changed and deleted files in these folders are picked up by themselves.</source>
        <translation>这些文件夹中新增、修改和删除的文件会被自动同步。</translation>
    </message>
    <message>
        <source>Checking folders is off in Settings; add a folder again to pick up changes.</source>
        <translation>设置中已关闭文件夹检查；要同步更改，请重新添加文件夹。</translation>
    </message>
    <message>
        <source>Show in file manager</source>
        <translation>在文件管理器中显示</translation>
    </message>
    <message>
        <source>Stop watching</source>
        <translation>停止监视</translation>
    </message>
    <message>
        <source>Keep the documents but stop checking this folder for changes</source>
        <translation>保留文档，但不再检查此文件夹的更改</translation>
    </message>
</context>
<context>
    <name>WelcomePage</name>
    <message>
        <source>UniDesk</source>
        <translation>UniDesk</translation>
    </message>
    <message>
        <source>A private assistant that runs on this computer.</source>
        <translation>在本机上运行的私人助手。</translation>
    </message>
    <message>
        <source>Load model…</source>
        <translation>加载模型…</translation>
    </message>
    <message>
        <source>Load model</source>
        <translation>加载模型</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Open settings</source>
        <translation>打开设置</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Looking at this machine…</source>
        <translation>正在查看本机…</translation>
    </message>
</context>
</TS>
