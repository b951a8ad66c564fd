"""IndicVisionBench's release: the sample read in the released layout, a configuration read from its own
folder or file, errors that name the file, row and column, images stored once by content hash and
prepared as the paper sends them; and the sample's rendering shapes Indic conjuncts."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont, features

from evaluators.core.media import DirectoryMedia, HashingSink
from evaluators.core.types import DatasetError
from evaluators.indic_vision.data import make_sample
from evaluators.indic_vision.evaluator import IndicVisionMMTEvaluator, IndicVisionOCREvaluator, IndicVisionVQAEvaluator
from evaluators.indic_vision.languages import BY_NAME

OCR, MMT, VQA = IndicVisionOCREvaluator(), IndicVisionMMTEvaluator(), IndicVisionVQAEvaluator()
SAMPLE = OCR.presentation().sample_dataset()


def jpeg(colour="red", size=(40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "JPEG")
    return out.getvalue()


def write(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def vqa_row(**changes) -> dict:
    row = {
        "id": "img-1",
        "image": {"bytes": jpeg(), "path": "img-1.jpg"},
        "language": "Hindi",
        "State/UT": "Bihar",
        "topic": "Festivals",
        "source_url": "",
        "short_q1": "कितने?",
        "short_a1": "3",
        "short_q2": "रंग?",
        "short_a2": "लाल",
        "mcq": "कौन-सा?",
        "mcq_opt1": "वृत्त",
        "mcq_opt2": "वर्ग",
        "mcq_opt3": "त्रिभुज",
        "mcq_opt4": "तारा",
        "mcq_a": "बी",
        "true_false_q": "यह लाल है।",
        "true_false_a": "सही",
        "long_q": "वर्णन कीजिए।",
        "long_a": "तीन लाल वृत्त",
        "adversarial_question": "यह नीला क्यों है?",
        "adversarial_answer": "यह नीला नहीं, लाल है",
    }
    row.update(changes)
    return row


def test_the_sample_in_the_released_layout():
    sink = HashingSink()
    ocr, mmt, vqa = (list(e.import_release(SAMPLE, sink)) for e in (OCR, MMT, VQA))
    assert len(ocr) == 22 and {i.slices["language"] for i in ocr} == set(make_sample.ORDER)
    assert len(mmt) == 30 and "English" not in {i.slices["language"] for i in mmt}
    assert len(vqa) == 3 * 11 * 6 and {i.slices["set"] for i in vqa} == {"en", "parallel"}
    assert len(sink.keys) == 22 + 3  # the three scenes are shared by translation and VQA: stored once
    hindi_mcq = next(i for i in vqa if i.id == "vqa_parallel/hi/scene-2/mcq")
    assert hindi_mcq.payload["gold"] == "B" and hindi_mcq.payload["options"][1] == "वर्ग"
    assert all("not been checked by native speakers" in i.payload["origin"] for i in ocr + mmt + vqa)
    notes = VQA.presentation().dataset_notes(vqa)
    assert notes[0].heading == "A generated sample" and "Hindi: 18" in notes[1].points


def test_a_configuration_from_its_folder_or_its_file_and_images_prepared_once(tmp_path):
    big = io.BytesIO()
    Image.new("RGBA", (2000, 500), (0, 0, 255, 255)).save(big, "PNG")
    same = {"bytes": big.getvalue(), "path": "a.png"}
    rows = [vqa_row(image=same), vqa_row(id="img-2", image=same, language="hi", long_q=None, adversarial_answer="")]
    # (the second row: a language code, two questions left empty, the same image)
    write(tmp_path / "vqa_indic" / "test-00000-of-00001.parquet", rows)
    media = DirectoryMedia(tmp_path / "media")
    from_folder = list(VQA.import_release(tmp_path, media))
    from_file = list(VQA.import_release(tmp_path / "vqa_indic" / "test-00000-of-00001.parquet", HashingSink()))
    assert [i.id for i in from_folder] == [i.id for i in from_file]
    assert len(from_folder) == 6 + 4 and from_folder[0].slices["set"] == "indic"
    stored = list((tmp_path / "media").rglob("*.jpg"))
    assert len(stored) == 1  # the same image twice: kept once
    image = Image.open(stored[0])
    assert (image.format, image.mode, image.size) == ("JPEG", "RGB", (1080, 270))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"mcq_a": "E"}, "test-00000-of-00001.parquet row 1, column 'mcq_a': 'E' names none of the options A-D"),
        ({"true_false_a": "शायद"}, "row 1, column 'true_false_a': 'शायद' is not a Hindi word for true or false"),
        ({"language": "Klingon"}, "row 1, column 'language': unknown language 'Klingon'"),
        ({"image": {"bytes": b"not an image", "path": None}}, "row 1, column 'image': not a readable image"),
        ({"id": None}, "row 1, column 'id': missing or empty"),
        ({"mcq_opt3": ""}, "row 1, column 'mcq_opt3': missing or empty"),
    ],
)
def test_malformed_rows_are_refused_naming_the_row_and_column(tmp_path, changes, message):
    write(tmp_path / "vqa_en" / "test-00000-of-00001.parquet", [vqa_row(**changes)])
    with pytest.raises(DatasetError) as raised:
        list(VQA.import_release(tmp_path))
    assert message in str(raised.value)


def test_other_release_problems_are_named(tmp_path):
    write(tmp_path / "vqa_en" / "test-00000-of-00001.parquet", [vqa_row(), vqa_row()])
    with pytest.raises(
        DatasetError, match=r"row 2, column 'id': the item 'vqa_en/hi/img-1/short_1' is also at .*row 1"
    ):
        list(VQA.import_release(tmp_path))
    with pytest.raises(DatasetError, match="has no ocr folder for this leaderboard"):
        list(OCR.import_release(tmp_path))
    write(
        tmp_path / "x" / "mixed.parquet", [{"id": "1", "image": {"bytes": jpeg(), "path": None}, "English": "A cat."}]
    )
    with pytest.raises(DatasetError, match="no translation in any of the columns Bengali"):
        list(MMT.import_release(tmp_path / "x"))
    with pytest.raises(DatasetError, match="a mmt record, but this leaderboard reads ocr"):
        list(OCR.import_release(tmp_path / "x"))
    write(tmp_path / "y" / "other.parquet", [{"question": "?"}])
    with pytest.raises(DatasetError, match=r"other.parquet row 1: the columns \(question\) are none of"):
        list(OCR.import_release(tmp_path / "y"))


def _ink(image: Image.Image) -> Image.Image:
    return image.convert("L").point(lambda v: 255 if v < 128 else 0)


@pytest.mark.parametrize("language, conjunct", [("Hindi", "क्ष"), ("Tamil", "க்ஷ")])
def test_the_sample_renders_conjuncts_as_a_shaping_layout_does(language, conjunct):
    assert features.check("raqm")
    font_path = str(make_sample.FONT_DIR / BY_NAME[language].font)
    rendered = make_sample.render_text(conjunct, language, size=48)

    def drawn(layout) -> Image.Image:
        page = Image.new("RGB", rendered.size, "white")
        ImageDraw.Draw(page).text(
            (30, 30), conjunct, font=ImageFont.truetype(font_path, 48, layout_engine=layout), fill="black"
        )
        return page

    shaped, unshaped = drawn(ImageFont.Layout.RAQM), drawn(ImageFont.Layout.BASIC)
    assert ImageChops.difference(_ink(rendered), _ink(shaped)).getbbox() is None  # the same glyph cluster
    assert ImageChops.difference(_ink(rendered), _ink(unshaped)).getbbox() is not None  # BASIC breaks it apart


def test_rendering_is_refused_without_raqm(monkeypatch):
    monkeypatch.setattr(features, "check", lambda name: name != "raqm")
    with pytest.raises(RuntimeError, match="no RAQM layout"):
        make_sample.render_text("क्ष", "Hindi")
