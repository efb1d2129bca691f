"""A tiny PDF writer for the browser tests: one page per text, Helvetica, nothing else."""


def make_pdf(pages: list[list[str]]) -> bytes:
    objects: list[bytes] = []
    kids = []
    font_id = 3
    for index, lines in enumerate(pages):
        content_id = 4 + index * 2
        page_id = content_id + 1
        kids.append(page_id)
        text = "BT /F1 12 Tf 72 720 Td 16 TL " + " ".join(f"({line.replace('(', '[').replace(')', ']')}) '" for line in lines) + " ET"
        objects.append((content_id, f"<< /Length {len(text)} >>\nstream\n{text}\nendstream".encode()))
        objects.append((page_id, f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_id} 0 R /Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()))
    objects.insert(0, (font_id, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"))
    objects.insert(0, (2, f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>".encode()))
    objects.insert(0, (1, b"<< /Type /Catalog /Pages 2 0 R >>"))
    objects.sort()
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for number, body in objects:
        offsets[number] = len(out)
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    count = max(offsets) + 1
    out += f"xref\n0 {count}\n0000000000 65535 f \n".encode()
    for number in range(1, count):
        out += f"{offsets[number]:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {count} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
