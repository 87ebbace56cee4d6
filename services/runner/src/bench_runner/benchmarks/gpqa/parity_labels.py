"""The original's multilingual answer labels (families M0–M45) and its cleaning tokens.

Data only, in the original's priority order; `extract_parity` compiles it. A label is literal
text except for `WS_MARK`, which stands for an optional run of JavaScript whitespace.
"""

from __future__ import annotations

from typing import Final

# Deleted from the text, in this order, before the multilingual families run.
CLEANUP_TOKENS: Final = (
    "**",
    "$\\boxed{",
    "}$",
    "\\$",
    "$\\text{",
    "$",
    "\\mathrm{",
    "\\{",
    "\\text",
    "\\(",
    "\\mathbf{",
    "{",
    "\\boxed",
)

WS_MARK = "\u27e8ws\u27e9"  # marks an optional run of JS whitespace inside a label
ZWSP6 = "\u200b" * 6
LABELS: Final = (
    f"Answer{WS_MARK}:",
    f"Answer{WS_MARK}:{ZWSP6}",
    f"উত্তর{WS_MARK}:",
    f"उत्तर{WS_MARK}:",
    "উত্তরঃ",
    f"উত্তর{WS_MARK}:",
    f"Antwort{WS_MARK}:",
    f"답변{WS_MARK}:",
    f"정답{WS_MARK}:",
    f"답{WS_MARK}:",
    f"答案{WS_MARK}：",
    f"答案{WS_MARK}:",
    f"答{WS_MARK}：",
    f"答{WS_MARK}:",
    f"答复{WS_MARK}：",
    f"答曰{WS_MARK}：",
    "الإجابة:",
    "الجواب:",
    "إجابة:",
    "الإجابة النهائية:",
    "الإجابة الصحيحة:",
    "الإجابة الصحيحة هي:",
    "الإجابة هي:",
    "الجواب النهائي:",
    f"Respuesta{WS_MARK}:",
    f"Risposta{WS_MARK}:",
    f"答え{WS_MARK}:",
    f"答え{WS_MARK}：",
    f"回答{WS_MARK}:",
    f"回答{WS_MARK}：",
    f"解答{WS_MARK}:",
    f"Jawaban{WS_MARK}:",
    f"Javob{WS_MARK}:",
    f"Жавоб{WS_MARK}:",
    f"Cevap{WS_MARK}:",
    f"Джевап{WS_MARK}:",
    f"Җавап{WS_MARK}:",
    f"Жауап{WS_MARK}:",
    f"Jawap{WS_MARK}:",
    f"Juwap{WS_MARK}:",
    "جاۋاب:",
    f"Cavab{WS_MARK}:",
    f"R\u00e9ponse{WS_MARK}:",
    f"Resposta{WS_MARK}:",
    f"Jibu{WS_MARK}:",
    f"Idahun{WS_MARK}:",
)

# A-J, Arabic U+0623-U+062F, Bengali অ ব ড ঢ, full-width Ａ-Ｊ; JS /i adds a-j and ａ-ｊ.
LABEL_LETTER = "([A-Ja-j\u0623-\u062f\u0985\u09ac\u09a1\u09a2\uff21-\uff2a\uff41-\uff4a])"

LETTER_MAP: Final = {
    "\u0623": "A",  # أ
    "\u0628": "B",  # ب
    "\u062c": "C",  # ج
    "\u062f": "D",  # د
    "\u0985": "A",  # অ
    "\u09ac": "B",  # ব
    "\u09a1": "C",  # ড
    "\u09a2": "D",  # ঢ
    **{chr(0xFF21 + i): chr(ord("A") + i) for i in range(10)},  # Ａ-Ｊ
}
