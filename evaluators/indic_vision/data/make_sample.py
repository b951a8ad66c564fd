"""Build IndicVisionBench's sample release (``sample/``), in the released layout: one folder per
configuration holding a Parquet file whose ``image`` column is a ``{bytes, path}`` struct.

- ``ocr``: two short texts per language, written for this project, rendered in Debian's Noto fonts
  (``fonts-noto-core``) through Pillow's RAQM layout, which shapes conjuncts (क्ष, க்ஷ) correctly;
  rendering is refused without it.
- ``mmt``: three generated scenes (shapes of one colour on white) with an English caption and its
  translation into the ten Indian languages.
- ``vqa_en`` and ``vqa_parallel``: the same scenes with the six question types in English and in the
  ten languages (the parallel set), from templates, with answers known by construction.

The texts and translations were written for this project and have not been checked by native
speakers; every record says so in its ``origin`` column, and the leaderboard shows it. The rendered
images are committed, so the sample does not change with font versions; run this only to change it:
``python -m evaluators.indic_vision.data.make_sample [OUT_DIR]``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from evaluators.core.images import jpeg_of

FONT_DIR = Path("/usr/share/fonts/truetype/noto")
ORIGIN = (
    "Generated for this platform: page texts, captions, translations and questions were written for the sample "
    "and have not been checked by native speakers; images are rendered shapes and text, not photographs."
)
ORDER = (
    "English",
    "Bengali",
    "Gujarati",
    "Hindi",
    "Kannada",
    "Malayalam",
    "Marathi",
    "Odia",
    "Punjabi",
    "Tamil",
    "Telugu",
)

OCR_TEXTS: dict[str, tuple[str, str]] = {
    "English": ("The river flows past the old temple.\nThe market opens at nine.", "Rain came early this year."),
    "Bengali": ("নদী পুরনো মন্দিরের পাশ দিয়ে বয়ে যায়।", "এ বছর বৃষ্টি তাড়াতাড়ি এসেছে।"),
    "Gujarati": ("નદી જૂના મંદિર પાસેથી વહે છે.", "આ વર્ષે વરસાદ વહેલો આવ્યો."),
    "Hindi": ("नदी पुराने मंदिर के पास बहती है।\nबाज़ार नौ बजे खुलता है।", "श्री क्षेत्र में विद्यालय है।"),
    "Kannada": ("ನದಿ ಹಳೆಯ ದೇವಾಲಯದ ಬಳಿ ಹರಿಯುತ್ತದೆ.", "ಈ ವರ್ಷ ಮಳೆ ಬೇಗ ಬಂತು."),
    "Malayalam": ("പുഴ പഴയ ക്ഷേത്രത്തിനരികിലൂടെ ഒഴുകുന്നു.", "ഈ വർഷം മഴ നേരത്തെ വന്നു."),
    "Marathi": ("नदी जुन्या मंदिराजवळून वाहते.", "या वर्षी पाऊस लवकर आला."),
    "Odia": ("ନଦୀ ପୁରୁଣା ମନ୍ଦିର ପାଖ ଦେଇ ବହେ।", "ଏହି ବର୍ଷ ବର୍ଷା ଶୀଘ୍ର ଆସିଲା।"),
    "Punjabi": ("ਨਦੀ ਪੁਰਾਣੇ ਮੰਦਰ ਦੇ ਕੋਲੋਂ ਵਗਦੀ ਹੈ।", "ਇਸ ਸਾਲ ਮੀਂਹ ਜਲਦੀ ਆਇਆ।"),
    "Tamil": ("ஆறு பழைய கோயிலின் அருகே ஓடுகிறது.", "இந்த ஆண்டு மழை சீக்கிரம் வந்தது. க்ஷேத்திரம்"),
    "Telugu": ("నది పాత గుడి దగ్గర ప్రవహిస్తుంది.", "ఈ సంవత్సరం వర్షం త్వరగా వచ్చింది."),
}

#: the scenes: (shape, count, colour index, RGB)
SCENES = (("circle", 3, 0, (200, 30, 30)), ("square", 2, 1, (30, 60, 200)), ("triangle", 4, 2, (30, 150, 60)))
SHAPES = ("circle", "square", "triangle", "star")
COLOURS = ("red", "blue", "green", "yellow")
#: per language: shape names (as SHAPES), colour names (as COLOURS), the word "colour", and the sentences
WORDS: dict[str, dict[str, Any]] = {
    "English": {
        "shapes": ("circle", "square", "triangle", "star"),
        "colours": ("red", "blue", "green", "yellow"),
        "colour": "colour",
        "count": "How many shapes are in the image?",
        "which_colour": "What colour are the shapes?",
        "which_shape": "Which shape is in the image?",
        "statement": "The colour of the shapes is {c}.",
        "describe": "Describe the image in detail.",
        "premise": "Why is the colour of the shapes {c}?",
    },
    "Bengali": {
        "shapes": ("বৃত্ত", "বর্গ", "ত্রিভুজ", "তারা"),
        "colours": ("লাল", "নীল", "সবুজ", "হলুদ"),
        "colour": "রং",
        "count": "ছবিতে কতগুলি আকৃতি আছে?",
        "which_colour": "আকৃতিগুলির রং কী?",
        "which_shape": "ছবিতে কোন আকৃতি আছে?",
        "statement": "আকৃতিগুলির রং {c}।",
        "describe": "ছবিটি বিস্তারিতভাবে বর্ণনা করুন।",
        "premise": "আকৃতিগুলির রং {c} কেন?",
    },
    "Gujarati": {
        "shapes": ("વર્તુળ", "ચોરસ", "ત્રિકોણ", "તારો"),
        "colours": ("લાલ", "વાદળી", "લીલો", "પીળો"),
        "colour": "રંગ",
        "count": "ચિત્રમાં કેટલા આકાર છે?",
        "which_colour": "આકારોનો રંગ કયો છે?",
        "which_shape": "ચિત્રમાં કયો આકાર છે?",
        "statement": "આકારોનો રંગ {c} છે.",
        "describe": "ચિત્રનું વિગતવાર વર્ણન કરો.",
        "premise": "આકારોનો રંગ {c} કેમ છે?",
    },
    "Hindi": {
        "shapes": ("वृत्त", "वर्ग", "त्रिभुज", "तारा"),
        "colours": ("लाल", "नीला", "हरा", "पीला"),
        "colour": "रंग",
        "count": "चित्र में कितनी आकृतियाँ हैं?",
        "which_colour": "आकृतियों का रंग क्या है?",
        "which_shape": "चित्र में कौन-सी आकृति है?",
        "statement": "आकृतियों का रंग {c} है।",
        "describe": "चित्र का विस्तार से वर्णन कीजिए।",
        "premise": "आकृतियों का रंग {c} क्यों है?",
    },
    "Kannada": {
        "shapes": ("ವೃತ್ತ", "ಚೌಕ", "ತ್ರಿಭುಜ", "ನಕ್ಷತ್ರ"),
        "colours": ("ಕೆಂಪು", "ನೀಲಿ", "ಹಸಿರು", "ಹಳದಿ"),
        "colour": "ಬಣ್ಣ",
        "count": "ಚಿತ್ರದಲ್ಲಿ ಎಷ್ಟು ಆಕಾರಗಳಿವೆ?",
        "which_colour": "ಆಕಾರಗಳ ಬಣ್ಣ ಯಾವುದು?",
        "which_shape": "ಚಿತ್ರದಲ್ಲಿ ಯಾವ ಆಕಾರವಿದೆ?",
        "statement": "ಆಕಾರಗಳ ಬಣ್ಣ {c}.",
        "describe": "ಚಿತ್ರವನ್ನು ವಿವರವಾಗಿ ವರ್ಣಿಸಿ.",
        "premise": "ಆಕಾರಗಳ ಬಣ್ಣ {c} ಏಕೆ?",
    },
    "Malayalam": {
        "shapes": ("വൃത്തം", "ചതുരം", "ത്രികോണം", "നക്ഷത്രം"),
        "colours": ("ചുവപ്പ്", "നീല", "പച്ച", "മഞ്ഞ"),
        "colour": "നിറം",
        "count": "ചിത്രത്തിൽ എത്ര രൂപങ്ങളുണ്ട്?",
        "which_colour": "രൂപങ്ങളുടെ നിറം എന്താണ്?",
        "which_shape": "ചിത്രത്തിൽ ഏത് രൂപമാണുള്ളത്?",
        "statement": "രൂപങ്ങളുടെ നിറം {c} ആണ്.",
        "describe": "ചിത്രം വിശദമായി വിവരിക്കുക.",
        "premise": "രൂപങ്ങളുടെ നിറം {c} ആയത് എന്തുകൊണ്ട്?",
    },
    "Marathi": {
        "shapes": ("वर्तुळ", "चौरस", "त्रिकोण", "तारा"),
        "colours": ("लाल", "निळा", "हिरवा", "पिवळा"),
        "colour": "रंग",
        "count": "चित्रात किती आकार आहेत?",
        "which_colour": "आकारांचा रंग कोणता आहे?",
        "which_shape": "चित्रात कोणता आकार आहे?",
        "statement": "आकारांचा रंग {c} आहे.",
        "describe": "चित्राचे सविस्तर वर्णन करा.",
        "premise": "आकारांचा रंग {c} का आहे?",
    },
    "Odia": {
        "shapes": ("ବୃତ୍ତ", "ବର୍ଗ", "ତ୍ରିଭୁଜ", "ତାରା"),
        "colours": ("ନାଲି", "ନୀଳ", "ସବୁଜ", "ହଳଦିଆ"),
        "colour": "ରଙ୍ଗ",
        "count": "ଚିତ୍ରରେ କେତୋଟି ଆକୃତି ଅଛି?",
        "which_colour": "ଆକୃତିଗୁଡ଼ିକର ରଙ୍ଗ କ'ଣ?",
        "which_shape": "ଚିତ୍ରରେ କେଉଁ ଆକୃତି ଅଛି?",
        "statement": "ଆକୃତିଗୁଡ଼ିକର ରଙ୍ଗ {c}।",
        "describe": "ଚିତ୍ରଟିକୁ ବିସ୍ତାରରେ ବର୍ଣ୍ଣନା କର।",
        "premise": "ଆକୃତିଗୁଡ଼ିକର ରଙ୍ଗ {c} କାହିଁକି?",
    },
    "Punjabi": {
        "shapes": ("ਚੱਕਰ", "ਵਰਗ", "ਤਿਕੋਣ", "ਤਾਰਾ"),
        "colours": ("ਲਾਲ", "ਨੀਲਾ", "ਹਰਾ", "ਪੀਲਾ"),
        "colour": "ਰੰਗ",
        "count": "ਤਸਵੀਰ ਵਿੱਚ ਕਿੰਨੀਆਂ ਆਕ੍ਰਿਤੀਆਂ ਹਨ?",
        "which_colour": "ਆਕ੍ਰਿਤੀਆਂ ਦਾ ਰੰਗ ਕੀ ਹੈ?",
        "which_shape": "ਤਸਵੀਰ ਵਿੱਚ ਕਿਹੜੀ ਆਕ੍ਰਿਤੀ ਹੈ?",
        "statement": "ਆਕ੍ਰਿਤੀਆਂ ਦਾ ਰੰਗ {c} ਹੈ।",
        "describe": "ਤਸਵੀਰ ਦਾ ਵਿਸਥਾਰ ਨਾਲ ਵਰਣਨ ਕਰੋ।",
        "premise": "ਆਕ੍ਰਿਤੀਆਂ ਦਾ ਰੰਗ {c} ਕਿਉਂ ਹੈ?",
    },
    "Tamil": {
        "shapes": ("வட்டம்", "சதுரம்", "முக்கோணம்", "நட்சத்திரம்"),
        "colours": ("சிவப்பு", "நீலம்", "பச்சை", "மஞ்சள்"),
        "colour": "நிறம்",
        "count": "படத்தில் எத்தனை வடிவங்கள் உள்ளன?",
        "which_colour": "வடிவங்களின் நிறம் என்ன?",
        "which_shape": "படத்தில் எந்த வடிவம் உள்ளது?",
        "statement": "வடிவங்களின் நிறம் {c}.",
        "describe": "படத்தை விரிவாக விவரிக்கவும்.",
        "premise": "வடிவங்களின் நிறம் ஏன் {c}?",
    },
    "Telugu": {
        "shapes": ("వృత్తం", "చతురస్రం", "త్రిభుజం", "నక్షత్రం"),
        "colours": ("ఎరుపు", "నీలం", "ఆకుపచ్చ", "పసుపు"),
        "colour": "రంగు",
        "count": "చిత్రంలో ఎన్ని ఆకారాలు ఉన్నాయి?",
        "which_colour": "ఆకారాల రంగు ఏమిటి?",
        "which_shape": "చిత్రంలో ఏ ఆకారం ఉంది?",
        "statement": "ఆకారాల రంగు {c}.",
        "describe": "చిత్రాన్ని వివరంగా వర్ణించండి.",
        "premise": "ఆకారాల రంగు {c} ఎందుకు?",
    },
}
CAPTIONS: tuple[dict[str, str], ...] = (
    {
        "English": "Three red circles on a white background.",
        "Bengali": "সাদা পটভূমিতে তিনটি লাল বৃত্ত।",
        "Gujarati": "સફેદ પૃષ્ઠભૂમિ પર ત્રણ લાલ વર્તુળો.",
        "Hindi": "सफ़ेद पृष्ठभूमि पर तीन लाल वृत्त।",
        "Kannada": "ಬಿಳಿ ಹಿನ್ನೆಲೆಯಲ್ಲಿ ಮೂರು ಕೆಂಪು ವೃತ್ತಗಳು.",
        "Malayalam": "വെളുത്ത പശ്ചാത്തലത്തിൽ മൂന്ന് ചുവന്ന വൃത്തങ്ങൾ.",
        "Marathi": "पांढऱ्या पार्श्वभूमीवर तीन लाल वर्तुळे.",
        "Odia": "ଧଳା ପୃଷ୍ଠଭୂମିରେ ତିନୋଟି ନାଲି ବୃତ୍ତ।",
        "Punjabi": "ਚਿੱਟੇ ਪਿਛੋਕੜ ਉੱਤੇ ਤਿੰਨ ਲਾਲ ਚੱਕਰ।",
        "Tamil": "வெள்ளை பின்னணியில் மூன்று சிவப்பு வட்டங்கள்.",
        "Telugu": "తెల్లని నేపథ్యంలో మూడు ఎరుపు వృత్తాలు.",
    },
    {
        "English": "Two blue squares on a white background.",
        "Bengali": "সাদা পটভূমিতে দুটি নীল বর্গ।",
        "Gujarati": "સફેદ પૃષ્ઠભૂમિ પર બે વાદળી ચોરસ.",
        "Hindi": "सफ़ेद पृष्ठभूमि पर दो नीले वर्ग।",
        "Kannada": "ಬಿಳಿ ಹಿನ್ನೆಲೆಯಲ್ಲಿ ಎರಡು ನೀಲಿ ಚೌಕಗಳು.",
        "Malayalam": "വെളുത്ത പശ്ചാത്തലത്തിൽ രണ്ട് നീല ചതുരങ്ങൾ.",
        "Marathi": "पांढऱ्या पार्श्वभूमीवर दोन निळे चौरस.",
        "Odia": "ଧଳା ପୃଷ୍ଠଭୂମିରେ ଦୁଇଟି ନୀଳ ବର୍ଗ।",
        "Punjabi": "ਚਿੱਟੇ ਪਿਛੋਕੜ ਉੱਤੇ ਦੋ ਨੀਲੇ ਵਰਗ।",
        "Tamil": "வெள்ளை பின்னணியில் இரண்டு நீல சதுரங்கள்.",
        "Telugu": "తెల్లని నేపథ్యంలో రెండు నీలం చతురస్రాలు.",
    },
    {
        "English": "Four green triangles on a white background.",
        "Bengali": "সাদা পটভূমিতে চারটি সবুজ ত্রিভুজ।",
        "Gujarati": "સફેદ પૃષ્ઠભૂમિ પર ચાર લીલા ત્રિકોણ.",
        "Hindi": "सफ़ेद पृष्ठभूमि पर चार हरे त्रिभुज।",
        "Kannada": "ಬಿಳಿ ಹಿನ್ನೆಲೆಯಲ್ಲಿ ನಾಲ್ಕು ಹಸಿರು ತ್ರಿಭುಜಗಳು.",
        "Malayalam": "വെളുത്ത പശ്ചാത്തലത്തിൽ നാല് പച്ച ത്രികോണങ്ങൾ.",
        "Marathi": "पांढऱ्या पार्श्वभूमीवर चार हिरवे त्रिकोण.",
        "Odia": "ଧଳା ପୃଷ୍ଠଭୂମିରେ ଚାରୋଟି ସବୁଜ ତ୍ରିଭୁଜ।",
        "Punjabi": "ਚਿੱਟੇ ਪਿਛੋਕੜ ਉੱਤੇ ਚਾਰ ਹਰੇ ਤਿਕੋਣ।",
        "Tamil": "வெள்ளை பின்னணியில் நான்கு பச்சை முக்கோணங்கள்.",
        "Telugu": "తెల్లని నేపథ్యంలో నాలుగు ఆకుపచ్చ త్రిభుజాలు.",
    },
)


def font(language: str, size: int) -> Any:
    """The language's Noto font with RAQM layout; refuses to go on without RAQM (BASIC breaks conjuncts)."""
    from PIL import ImageFont, features

    from evaluators.indic_vision.languages import BY_NAME

    if not features.check("raqm"):
        raise RuntimeError(
            "Pillow has no RAQM layout here: Indic text would be rendered without shaping (broken "
            "conjuncts); install a Pillow wheel that bundles raqm"
        )
    path = FONT_DIR / BY_NAME[language].font
    if not path.exists():
        raise RuntimeError(f"{path} is missing: install Debian's fonts-noto-core")
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.RAQM)


def render_text(text: str, language: str, *, size: int = 40) -> Any:
    """A white page with ``text`` in black, one line per line of the text, shaped by RAQM, as wide as
    its longest line."""
    from PIL import Image, ImageDraw

    face = font(language, size)
    lines = text.split("\n")
    width = 60 + max(int(face.getlength(line)) for line in lines)
    height = 60 + int(size * 1.8) * len(lines)
    page = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(page)
    for index, line in enumerate(lines):
        draw.text((30, 30 + int(size * 1.8) * index), line, font=face, fill="black")
    return page


def render_scene(shape: str, count: int, rgb: tuple[int, int, int], word: str) -> Any:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (640, 400), "white")
    draw = ImageDraw.Draw(image)
    step = 640 // (count + 1)
    for index in range(count):
        x, y, r = step * (index + 1), 170, 50
        if shape == "circle":
            draw.ellipse((x - r, y - r, x + r, y + r), fill=rgb)
        elif shape == "square":
            draw.rectangle((x - r, y - r, x + r, y + r), fill=rgb)
        else:
            draw.polygon([(x, y - r), (x - r, y + r), (x + r, y + r)], fill=rgb)
    draw.text((30, 330), word, font=font("English", 36), fill="black")
    return image


def _write(folder: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows)
    pq.write_table(table, folder / "test-00000-of-00001.parquet", compression="zstd")


def build(out: Path) -> None:
    ocr = []
    for language in ORDER:
        for index, text in enumerate(OCR_TEXTS[language], 1):
            ocr.append(
                {
                    "id": f"{language.lower()}-{index}",
                    "image": {"bytes": jpeg_of(render_text(text, language)), "path": f"{language.lower()}-{index}.jpg"},
                    "text": text,
                    "language": language,
                    "page_url": "",
                    "origin": ORIGIN,
                }
            )
    _write(out / "ocr", ocr)
    scenes = [jpeg_of(render_scene(shape, count, rgb, COLOURS[colour].upper())) for shape, count, colour, rgb in SCENES]
    mmt = []
    for index, caption in enumerate(CAPTIONS):
        mmt.append(
            {
                "id": f"scene-{index + 1}",
                "image": {"bytes": scenes[index], "path": f"scene-{index + 1}.jpg"},
                "topic": "Shapes",
                "State/UT": "",
                **caption,
                "source_url": "",
                "origin": ORIGIN,
            }
        )
    _write(out / "mmt", mmt)
    english: list[dict[str, Any]] = []
    parallel: list[dict[str, Any]] = []
    for language in ORDER:
        rows = english if language == "English" else parallel
        for index, (shape, count, colour, _) in enumerate(SCENES):
            rows.append(_vqa_row(language, index, shape, count, colour, scenes[index]))
    _write(out / "vqa_en", english)
    _write(out / "vqa_parallel", parallel)


def _vqa_row(language: str, index: int, shape: str, count: int, colour: int, image: bytes) -> dict[str, Any]:
    from evaluators.indic_vision.languages import BY_NAME

    words = WORDS[language]
    names, colours = words["shapes"], words["colours"]
    wrong = colours[(colour + 1) % len(COLOURS)]
    truthful = index % 2 == 0  # alternate true and false statements
    options = list(names)  # circle, square, triangle, star: the answer is the scene's shape
    lang = BY_NAME[language]
    return {
        "id": f"scene-{index + 1}",
        "image": {"bytes": image, "path": f"scene-{index + 1}.jpg"},
        "language": language,
        "State/UT": "",
        "topic": "Shapes",
        "source_url": "",
        "origin": ORIGIN,
        "short_q1": words["count"],
        "short_a1": str(count),
        "short_q2": words["which_colour"],
        "short_a2": colours[colour],
        "mcq": words["which_shape"],
        "mcq_opt1": options[0],
        "mcq_opt2": options[1],
        "mcq_opt3": options[2],
        "mcq_opt4": options[3],
        "mcq_a": "ABCD"[SHAPES.index(shape)],
        "true_false_q": words["statement"].format(c=colours[colour] if truthful else wrong),
        "true_false_a": lang.true_words[0] if truthful else lang.false_words[0],
        "long_q": words["describe"],
        "long_a": f"{names[SHAPES.index(shape)]} × {count}; {words['colour']}: {colours[colour]}",
        "adversarial_question": words["premise"].format(c=wrong),
        "adversarial_answer": f"{words['colour']}: {colours[colour]} ({wrong} ✗)",
    }


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "sample"
    build(target)
    print(f"wrote the sample to {target}")
