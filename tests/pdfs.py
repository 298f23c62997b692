"""Real PDFs made by the tests: text pages (written by hand in PDF syntax), scans, encrypted."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(
    pages: list[str],
    *,
    font_size: float = 11,
    width: float = 595,
    height: float = 842,
    sizes: list[tuple[float, float]] | None = None,
) -> bytes:
    """A PDF whose pages carry these texts (lines split on newlines) in Helvetica.

    Every page is `width`×`height` points, or each its own size from `sizes`.
    """
    objects: list[bytes] = []

    def add(body: str | bytes) -> int:
        objects.append(body.encode("latin-1") if isinstance(body, str) else body)
        return len(objects)

    font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    page_ids = []
    pages_id = len(objects) + 1 + 2 * len(pages)  # reserved below, after the pages
    for index, text in enumerate(pages):
        width, height = sizes[index] if sizes else (width, height)
        leading = font_size * 1.2
        lines = [f"BT /F1 {font_size} Tf {leading} TL 20 {height - 30} Td"]
        for line in text.split("\n"):
            lines.append(f"({_escape(line)}) Tj T*")
        lines.append("ET")
        stream = "\n".join(lines).encode("latin-1")
        content = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        page_ids.append(
            add(
                f"<< /Type /Page /Parent {pages_id} 0 R /MediaBox [0 0 {width} {height}] "
                f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {content} 0 R >>"
            )
        )
    kids = " ".join(f"{i} 0 R" for i in page_ids)
    assert add(f"<< /Type /Pages /Kids [{kids}] /Count {len(page_ids)} >>") == pages_id
    catalog = add(f"<< /Type /Catalog /Pages {pages_id} 0 R >>")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
        % (len(objects) + 1, catalog, xref)
    )
    return out.getvalue()


def scanned_pdf(page_count: int) -> bytes:
    """An image-only PDF (what a scanner makes): pages with drawn words but no text layer."""
    pages = []
    for number in range(1, page_count + 1):
        image = Image.new("RGB", (620, 877), "white")
        draw = ImageDraw.Draw(image)
        draw.text((60, 60), f"Scanned page {number}", fill="black")
        draw.rectangle([60, 120, 560, 400], outline="black")
        pages.append(image)
    buffer = io.BytesIO()
    pages[0].save(buffer, format="PDF", save_all=True, append_images=pages[1:], resolution=75)
    return buffer.getvalue()


def encrypted_pdf(password: str, text: str = "Top secret") -> bytes:
    """A text PDF encrypted with a user password (pikepdf)."""
    import pikepdf

    source = pikepdf.open(io.BytesIO(text_pdf([text])))
    out = io.BytesIO()
    source.save(out, encryption=pikepdf.Encryption(user=password, owner=password + "-owner"))
    return out.getvalue()


def dense_page_text(tokens: int) -> str:
    """Text of about `tokens` estimated tokens, in lines that fit a page at a tiny font."""
    words = "The quarterly figures rose while costs held steady across all regions "
    line = (words * 4)[:280]
    return "\n".join(line for _ in range(tokens * 4 // len(line) + 1))
