"""Keyword terms for the full-text index: latin words plus CJK character unigrams and bigrams.

SQLite's ``unicode61`` tokenizer keeps a run of Chinese/Japanese characters as one token, so a
query for a 2-character word never matches inside a longer run, and the ``trigram`` tokenizer
cannot match queries shorter than 3 characters. Both sides are therefore segmented here, in
Python, the same way: every CJK run becomes its single characters plus its overlapping
character bigrams, and latin words are lowercased. The index stores the terms separated by
spaces; queries are built from the same terms.
"""

from __future__ import annotations

import re

# Han (incl. extension A and compatibility ideographs), Hiragana, Katakana, Hangul syllables,
# CJK symbols that are letters in practice (々 〆), half-width Katakana.
_CJK_CLASS = (
    "\u3005\u3006\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_TOKEN_PATTERN = re.compile(rf"[{_CJK_CLASS}]+|[^\W_{_CJK_CLASS}]+(?:['’][^\W_{_CJK_CLASS}]+)*")
_CJK_RUN = re.compile(rf"[{_CJK_CLASS}]+")

# Common English words that carry no topic; dropped from queries (they stay in the index).
QUERY_STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in
    into is it its me my of on or our should so than that the their them then there these they
    this those to was we were what when where which who whom why will with would you your about
    tell explain describe""".split()
)


def _cjk_terms(run: str, *, unigrams: bool) -> list[str]:
    if len(run) == 1:
        return [run]
    bigrams = [run[index : index + 2] for index in range(len(run) - 1)]
    return [*run, *bigrams] if unigrams else bigrams


def index_terms(text: str) -> str:
    """The text as space-separated index terms (what the FTS5 column stores)."""
    terms: list[str] = []
    for match in _TOKEN_PATTERN.finditer(text):
        token = match.group()
        if _CJK_RUN.fullmatch(token):
            terms.extend(_cjk_terms(token, unigrams=True))
        else:
            terms.append(token.lower().replace("’", "'"))
    return " ".join(terms)


def query_terms(text: str) -> list[str]:
    """Distinct terms of a question, in order: CJK bigrams (or the lone character), latin words.

    Single CJK characters are only used when a run has just one character; longer runs match
    through their bigrams, which are far more specific. English stop words are dropped unless
    nothing else is left.
    """
    terms: list[str] = []
    stop_terms: list[str] = []
    for match in _TOKEN_PATTERN.finditer(text):
        token = match.group()
        if _CJK_RUN.fullmatch(token):
            terms.extend(_cjk_terms(token, unigrams=False))
        else:
            word = token.lower().replace("’", "'")
            (stop_terms if word in QUERY_STOPWORDS else terms).append(word)
    chosen = terms or stop_terms
    return list(dict.fromkeys(chosen))


def match_expression(terms: list[str]) -> str:
    """An FTS5 MATCH expression that finds chunks containing any of ``terms`` (BM25 ranks them)."""
    quoted = ['"' + term.replace('"', '""') + '"' for term in terms]
    return " OR ".join(quoted)
