#!/usr/bin/env python3
"""Opens a `planseal report` page in a real browser and checks what a reader gets.

Chromium (headless, driven through chromedriver by Selenium's WebDriver) opens the page from
file:// and the script checks, printing one line per check:

- the DOM: the first Deep Work Plan's timeline has one lane per task (--tasks), and the plan's
  verdict reads --verdict;
- the browser log: no SEVERE entry (a blocked resource, a script error, a bad SVG);
- a screenshot: not blank (more than one distinct colour);
- the page printed to PDF (Chrome DevTools' Page.printToPDF, the page's own @page size): one
  page per plan section.

Usage: report_check.py PAGE.html --tasks N --verdict TEXT [--out-dir DIR]
Exit 0 when every check holds, 1 otherwise (the failed checks are named), 2 when the browser
cannot be started. Run by tests/cli/report_browser.rs; it needs the Debian packages chromium and
chromium-driver and the Python package selenium (scripts/test installs them).
"""

import argparse
import base64
import json
import os
import re
import shutil
import struct
import sys
import tempfile
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def find(program, *candidates):
    for name in (program, *candidates):
        path = shutil.which(name)
        if path:
            return path
    return None


def browser(user_data_dir):
    options = webdriver.ChromeOptions()
    binary = find("chromium", "chromium-browser")
    if binary:
        options.binary_location = binary
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--window-size=1200,1600",
        "--user-data-dir=" + user_data_dir,
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = find("chromedriver")
    service = Service(driver) if driver else Service()
    return webdriver.Chrome(service=service, options=options)


def png_colours(png, limit=64):
    """The distinct RGB(A) pixel values of an 8-bit RGB or RGBA PNG, up to `limit` of them."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, idat, width, height, depth, kind = 8, b"", 0, 0, 0, 0
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        tag = png[at + 4 : at + 8]
        body = png[at + 8 : at + 8 + length]
        if tag == b"IHDR":
            width, height, depth, kind = struct.unpack(">IIBB", body[:10])
        elif tag == b"IDAT":
            idat += body
        at += 12 + length
    if depth != 8 or kind not in (2, 6):
        raise ValueError(f"PNG of bit depth {depth}, colour type {kind}")
    bpp = 3 if kind == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    colours = set()
    pos = 0
    for _ in range(height):
        kind_of_filter = raw[pos]
        line = bytearray(raw[pos + 1 : pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            if kind_of_filter == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind_of_filter == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind_of_filter == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind_of_filter == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + pred) & 0xFF
        for x in range(0, stride, bpp * 7):
            colours.add(bytes(line[x : x + bpp]))
            if len(colours) >= limit:
                return colours
        previous = line
    return colours


def pdf_pages(pdf):
    """The page count of a PDF: its page objects, and the /Count of its page tree."""
    pages = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))
    counts = [int(c) for c in re.findall(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)", pdf, re.S)]
    counts += [int(c) for c in re.findall(rb"/Count\s+(\d+)[^>]*?/Type\s*/Pages\b", pdf, re.S)]
    return pages, max(counts) if counts else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page")
    parser.add_argument("--tasks", type=int, required=True)
    parser.add_argument("--verdict", required=True)
    parser.add_argument("--out-dir", default=None)
    args = parser.parse_args()
    out_dir = args.out_dir or tempfile.mkdtemp(prefix="report-check-")
    os.makedirs(out_dir, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="report-check-profile-")
    failures = []

    def check(name, ok, detail):
        print(f"{'ok' if ok else 'FAILED'}: {name}: {detail}")
        if not ok:
            failures.append(name)

    try:
        driver = browser(profile)
    except Exception as e:  # the browser or its driver is missing or cannot start
        print(f"cannot start chromium through chromedriver: {e}", file=sys.stderr)
        return 2
    try:
        driver.get("file://" + os.path.abspath(args.page))
        plans = driver.find_elements(By.CSS_SELECTOR, "section.plan")
        dwp = driver.find_elements(By.CSS_SELECTOR, "section.plan.system-dwp")
        check("plans", len(plans) > 0, f"{len(plans)} plan section(s)")
        if dwp:
            lanes = dwp[0].find_elements(By.CSS_SELECTOR, "svg.timeline g.lane")
            check("lanes", len(lanes) == args.tasks, f"{len(lanes)} lane(s), {args.tasks} task(s)")
            verdict = dwp[0].find_element(By.CSS_SELECTOR, ".plan-head .verdict-text").text
            check("verdict", verdict == args.verdict, f"{verdict!r}")
        else:
            check("lanes", False, "no Deep Work Plan section")

        severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        check("browser log", not severe, f"{len(severe)} SEVERE entr(ies) {severe[:3]}")

        shot = driver.get_screenshot_as_png()
        with open(os.path.join(out_dir, "report.png"), "wb") as f:
            f.write(shot)
        colours = png_colours(shot)
        check("screenshot", len(colours) > 1, f"{len(colours)} distinct colour(s) sampled")

        printed = driver.execute_cdp_cmd(
            "Page.printToPDF", {"preferCSSPageSize": True, "printBackground": True}
        )
        pdf = base64.b64decode(printed["data"])
        with open(os.path.join(out_dir, "report.pdf"), "wb") as f:
            f.write(pdf)
        pages, count = pdf_pages(pdf)
        check(
            "pdf",
            pages == len(plans) and count in (None, len(plans)),
            f"{pages} page(s) (page tree /Count {count}) for {len(plans)} plan(s)",
        )
        print(json.dumps({"plans": len(plans), "pages": pages, "out_dir": out_dir}))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    if failures:
        print("failed: " + ", ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
