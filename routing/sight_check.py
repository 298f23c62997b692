"""The sight check: does a model really look at the pictures it is sent?

Some servers answer HTTP 200 to a request with pictures and drop them (a model
without its vision projector behind an OpenAI-compatible server, some proxies), so
nothing is refused and heal-and-retry can't help. The check sends the model one
small probe picture of something a seeing model can't miss and a blind one can't
guess — a few shapes of one colour, drawn anew for every check — asks a short,
strict question, and reads the answer: it *sees* (colour, shape and count all
right), it is *blind* (it says there is no picture, or guesses wrong), or Sightline
is *unsure* (no clear answer, or the request failed). A blind guess passes about
once in a hundred checks.
"""

from __future__ import annotations

import asyncio
import io
import logging
import random
import re
from dataclasses import dataclass

from routing.catalogue import Catalogue
from routing.errors import PicturesRefused, ProviderError
from routing.models import ModelInfo, Verdict
from routing.parameters import SettingRefused, fitted, stream_taken
from routing.shaping import limits_for, shape_messages
from routing.transcript import user_message
from routing.wires.base import ChatRequest, TextDelta
from vision.pictures import Picture, sniff

log = logging.getLogger(__name__)

# Colours far apart, with the one name a person (and a model) gives each.
COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (220, 30, 30),
    "green": (30, 160, 60),
    "blue": (30, 70, 220),
    "yellow": (240, 200, 0),
    "orange": (245, 130, 20),
    "purple": (130, 50, 170),
    "black": (20, 20, 20),
    "pink": (240, 110, 180),
}
SHAPES = ("circle", "square")
COUNTS = range(2, 8)
QUESTION = (
    "Look at the attached picture. How many shapes does it show, what shape are they, "
    "and what colour are they? Reply with only the number, the shape and the colour. "
    "If you can't see a picture, reply only: no picture."
)
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_NO_PICTURE = re.compile(
    r"no (?:picture|image|attachment)|(?:can ?not|can't|unable to|don't|do not) see"
    r"|(?:not|n't) (?:attached|included|provided|shared|see any)|text[- ]based|only (?:read )?text",
    re.I,
)
# A shape's other names in an answer.
_SHAPE_WORDS = {"circle": ("circle", "dot", "disc", "disk", "round"), "square": ("square", "box")}
CHECK_TIMEOUT = 120.0  # a local model may load first


@dataclass(frozen=True)
class Probe:
    """One probe picture and what it shows."""

    picture: Picture
    colour: str
    shape: str
    count: int


@dataclass(frozen=True)
class CheckResult:
    """A check's verdict, with the model's own words (or why there were none)."""

    verdict: Verdict
    answer: str


def make_probe(rng: random.Random | None = None) -> Probe:
    """A new probe: 2-7 circles or squares of one colour, well apart, on white."""
    from PIL import Image, ImageDraw  # Pillow loads with the first picture

    rng = rng or random.SystemRandom()
    colour = rng.choice(list(COLOURS))
    shape = rng.choice(SHAPES)
    count = rng.choice(list(COUNTS))
    cells = rng.sample(range(8), count)  # a 4×2 grid of cells, one shape in some of them
    image = Image.new("RGB", (384, 192), "white")
    draw = ImageDraw.Draw(image)
    for cell in cells:
        x, y = 16 + (cell % 4) * 92, 16 + (cell // 4) * 88
        box = (x + 8, y + 8, x + 64, y + 64)
        if shape == "circle":
            draw.ellipse(box, fill=COLOURS[colour])
        else:
            draw.rectangle(box, fill=COLOURS[colour])
    out = io.BytesIO()
    image.save(out, format="PNG")
    return Probe(sniff(out.getvalue(), "sight-check.png"), colour, shape, count)


def _counts_in(text: str) -> set[int]:
    numbers = {int(n) for n in re.findall(r"\b\d\b", text)}
    numbers |= {i for i, word in enumerate(_NUMBER_WORDS) if re.search(rf"\b{word}\b", text)}
    return numbers


def read_answer(answer: str, probe: Probe) -> Verdict:
    """The verdict an answer gives about a probe."""
    text = answer.lower()
    colours = {c for c in COLOURS if re.search(rf"\b{c}\b", text)}
    shapes = {s for s, words in _SHAPE_WORDS.items() if any(w in text for w in words)}
    counts = _counts_in(text)
    if colours == {probe.colour} and shapes == {probe.shape} and counts == {probe.count}:
        return Verdict.SEES
    if _NO_PICTURE.search(text) or (colours and probe.colour not in colours):
        return Verdict.BLIND  # it says it has no picture, or guessed a colour it wasn't
    return Verdict.UNSURE


ANSWER_TOKENS = 48  # "Three blue squares." and then some: what the reading needs


async def check_sight(
    catalogue: Catalogue, model: ModelInfo, probe: Probe | None = None
) -> CheckResult:
    """Ask the model about a probe picture; a failed request is `unsure`, never an error."""
    probe = probe or make_probe()
    side = catalogue.answer(model).picture_side
    messages = shape_messages((user_message(QUESTION, (probe.picture,)),), limits_for(side))
    # The answer is a few words; a model that rambles is cut off rather than waited for.
    asked = ChatRequest(model.name, messages, max_tokens=ANSWER_TOKENS, temperature=0.0)
    request, _ = fitted(asked, catalogue.answer(model))  # only what the model takes
    words: list[str] = []
    try:
        async with asyncio.timeout(CHECK_TIMEOUT):
            async for event in stream_taken(catalogue.wire(model.provider_id), request):
                if isinstance(event, SettingRefused):  # asked again without it
                    catalogue.learn_refused(model.ref, event.param)
                elif isinstance(event, TextDelta):
                    words.append(event.text)
                    if sum(map(len, words)) > 2000:  # a rambling answer is answer enough
                        break
    except PicturesRefused as exc:  # said outright: it takes no pictures
        return CheckResult(Verdict.BLIND, f"(its server refused the probe picture: {exc})")
    except (ProviderError, TimeoutError) as exc:
        log.warning("the sight check of %s failed: %s", model.ref, exc)
        return CheckResult(Verdict.UNSURE, f"(the check's request failed: {exc})")
    answer = "".join(words).strip()
    return CheckResult(read_answer(answer, probe), answer)
