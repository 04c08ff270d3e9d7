#!/usr/bin/python3
"""report_html_check.py - the checks of one rendered report page (tests/cli/report_html.sh).

Usage: report_html_check.py PAGE DOM STDERR NETLOG PNG [--sections a,b] [--charts x,y] [--hostile TEXT]

PAGE is the page dfscope wrote, DOM what headless Chromium made of it (--dump-dom, after its
scripts ran), STDERR Chromium's log (--enable-logging=stderr: console messages are lines with
"CONSOLE"), NETLOG its network log (--log-net-log), PNG its screenshot. Checks:
  - the page is valid HTML (html5lib's strict parser raises on any parse error);
  - it references nothing outside itself (no src but an image's data:image/svg+xml URL, no href
    other than a fragment, no srcset, action, poster, data or xlink:href attribute; no url( or
    @import in its styles; no external script);
  - the browser logged no console message and no request left the page (a netlog request whose
    network isolation key is the file:// page and whose URL is not file: or data:);
  - the DOM has the expected sections and charts, each chart with marks;
  - no script of a trace ran (the hostile trace's scripts would mark the html element) and the
    hostile text is there as text; the page's JSON data block parses;
  - the screenshot is not blank (many colours, a dark and a light side).
Exit 0 when all hold; else each failure on stderr and exit 1. Needs Debian's python3-html5lib and
python3-pil (scripts/deps.sh test)."""
import base64
import json
import sys

import html5lib
from PIL import Image

NS = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"
URL_ATTRS = {"src", "srcset", "action", "formaction", "poster", "data", "background", "manifest",
             "{http://www.w3.org/1999/xlink}href"}
PICTURE = "data:image/svg+xml;base64,"
failures = []


def fail(what):
    failures.append(what)


def args():
    a = {"sections": [], "charts": [], "hostile": None}
    pos = []
    it = iter(sys.argv[1:])
    for x in it:
        if x.startswith("--"):
            v = next(it)
            a[x[2:]] = v if x == "--hostile" else [s for s in v.split(",") if s]
        else:
            pos.append(x)
    a["page"], a["dom"], a["stderr"], a["netlog"], a["png"] = pos
    return a


def valid(path):
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=True)
    try:
        return parser.parse(open(path, "rb").read())
    except Exception as e:  # html5lib.html5parser.ParseError, with the position
        fail(f"{path}: not valid HTML: {e}")
        return html5lib.parse(open(path, "rb").read())


def self_contained(tree):
    for el in tree.iter():
        tag = el.tag.split("}")[-1] if isinstance(el.tag, str) else ""
        for k, v in el.attrib.items():
            name = k.split("}")[-1] if k.startswith("{http://www.w3.org/1999/xhtml}") else k
            inline_picture = tag == "img" and name == "src" and v.startswith(PICTURE)
            if (name in URL_ATTRS and not inline_picture) or (name == "href" and not v.startswith("#")):
                fail(f"<{tag} {name}={v!r}> refers outside the page")
        if tag in ("style",) and el.text and ("url(" in el.text or "@import" in el.text):
            fail("a style loads something")
        if tag == "link":
            fail("a <link> element")


def browser_quiet(stderr, netlog):
    for line in open(stderr, errors="replace"):
        if "CONSOLE" in line or "Refused to" in line:
            fail("console: " + line.strip())
    try:
        log = json.load(open(netlog))
    except ValueError:
        # a log cut short (the browser stopped before closing it): its complete events still count
        text = open(netlog).read()
        log = json.loads(text[: text.rfind("}") + 1] + "]}")
    urls, from_page = {}, set()
    for e in log.get("events", []):
        p, src = e.get("params", {}), e.get("source", {}).get("id")
        if "url" in p:
            urls.setdefault(src, set()).add(p["url"])
        if "file://" in str(p.get("network_isolation_key", "")):
            from_page.add(src)
    for src in from_page:
        for u in urls.get(src, ()):
            if not u.startswith(("file:", "data:")):
                fail(f"the page requested {u}")


def text_of(el):
    return "".join(el.itertext())


def dom_checks(a):
    tree = html5lib.parse(open(a["dom"], "rb").read())
    root = tree
    if root.get("data-pwned"):
        fail(f"a script from the trace ran (data-pwned={root.get('data-pwned')})")
    ids = {el.get("id"): el for el in tree.iter() if el.get("id")}
    for s in a["sections"]:
        if s not in ids:
            fail(f"section {s} missing")
    for c in a["charts"]:
        el = ids.get(c)
        if el is not None and el.tag == NS + "img":
            svg = base64.b64decode(el.get("src", "")[len(PICTURE):]).decode("utf-8")
            if "<svg" not in svg or "<rect" not in svg:
                fail(f"picture {c} is no drawing")
        elif el is None or el.tag != SVG + "svg":
            fail(f"chart {c} missing")
        elif not [m for m in el.iter() if m.tag in (SVG + "rect", SVG + "polyline")]:
            fail(f"chart {c} has no marks")
    data = ids.get("dfscope-data")
    try:
        doc = json.loads(text_of(data)) if data is not None else None
        if not doc or "verdict" not in doc:
            fail("the data block lacks the verdict")
    except ValueError as e:
        fail(f"the data block is not JSON: {e}")
        doc = None
    if a["hostile"]:
        body = text_of(tree)
        if a["hostile"] not in body:
            fail("the hostile text is not shown as text")
        if doc and not any(a["hostile"] in i.get("evidence", "") for i in doc.get("insights", [])):
            fail("the hostile text is not in the data block")


def not_blank(png):
    im = Image.open(png).convert("RGB")
    small = im.resize((im.width // 4, im.height // 4))
    colours = len(set(small.getdata()))
    lo, hi = min(im.convert("L").getextrema()), max(im.convert("L").getextrema())
    if colours < 8 or hi - lo < 100:
        fail(f"the screenshot looks blank ({colours} colours, luminance {lo}..{hi})")


def main():
    a = args()
    self_contained(valid(a["page"]))
    browser_quiet(a["stderr"], a["netlog"])
    dom_checks(a)
    not_blank(a["png"])
    for f in failures:
        print(f"{a['page']}: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
