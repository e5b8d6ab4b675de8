"""Qt-free core of UniDesk: settings, hardware probe, memory planner, engines, knowledge base.

Importing this package must stay cheap: heavy libraries (torch, vllm, llama_cpp,
sentence_transformers, chromadb) are imported only inside the functions that use them.
"""
