#!/usr/bin/python3
"""A person's browser on perfkit serve: headless Chromium (Debian's chromium and
chromium-driver through python3-selenium) loads the menu and every screen, reads the
rendered table cells and compares them with what `perfkit SCREEN --file` prints for the
same interval, waits one interval for new figures, checks that a chart changes without a
reload, and saves PNG screenshots for a person to look at.

    web_browser.py URL MONITOR_FILE PERFKIT OUTDIR [INTERVAL_S]

Prints one "ok: ..." line per check; exit 0, 1 on a failed check (its reason last), 77
when Chromium, its driver or selenium is missing.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
except ImportError:
    print("SKIP: python3-selenium missing")
    sys.exit(77)

URL, MON, PERFKIT, OUT = sys.argv[1:5]
INTERVAL = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
DRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def browser(profile):
    if not (os.access(DRIVER, os.X_OK) and os.access(CHROMIUM, os.X_OK)):
        print("SKIP: chromium or chromium-driver missing")
        sys.exit(77)
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    # As root Chromium needs --no-sandbox; the machine has no network, so nothing may try
    # to reach one (background networking, sync, component updates, QUIC).
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
              "--no-first-run", "--disable-background-networking",
              "--disable-component-update", "--disable-sync",
              "--disable-dev-shm-usage", "--window-size=1280,900",
              "--user-data-dir=" + profile):
        o.add_argument(a)
    return webdriver.Chrome(service=Service(DRIVER), options=o)


def cells(d):
    """Rows of the screen table: the cells' text, one list per row (header row left out)."""
    rows = []
    for tr in d.find_elements(By.CSS_SELECTOR, "#screen tr"):
        tds = tr.find_elements(By.TAG_NAME, "td")
        if tds:
            rows.append([td.get_attribute("textContent") for td in tds])
    return rows


def text_rows(screen, end):
    """perfkit SCREEN --file MON --interval END: its data rows split into fields."""
    r = subprocess.run([PERFKIT, screen, "--file", MON, "--interval", end],
                       capture_output=True, text=True, timeout=20)
    if r.returncode not in (0, 1):
        fail("%s --interval %s: rc %d %s" % (screen, end, r.returncode, r.stderr.strip()))
    lines = r.stdout.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith("Addr "))
    return r.stdout, [l.split() for l in lines[head + 1:] if l.strip()]


def title(d):
    t = d.find_element(By.ID, "title").text
    m = re.search(r"Interval (\d\d:\d\d:\d\d) - (\d\d:\d\d:\d\d)", t)
    if not m:
        fail("no interval in the title: " + t)
    return m.group(2)


def flat(row):
    """A table row as the terminal prints it: the System row's fields, blank cells gone."""
    out = []
    for c in row:
        out.extend(c.split())
    return out


def compare(d, screen):
    d.get(URL + screen)
    end = title(d)
    got = [flat(r) for r in cells(d)]
    text, want = text_rows(screen, end)
    if screen == "FCX269":          # its System row is one cell: "<< System >>" and rates
        want = [w if not w[0].startswith("<<") else ["<<", "System", ">>"] + w[-8:]
                for w in want]
    if got != want:
        fail("%s at %s: the page's cells\n%s\nare not perfkit's fields\n%s\n%s" %
             (screen, end, json.dumps(got), json.dumps(want), text))
    d.save_screenshot(os.path.join(OUT, "web-%s.png" % screen.lower()))
    print("ok: %s cells match perfkit %s --interval %s (%d rows)" % (screen, screen, end,
                                                                   len(got)))
    return end


def main():
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="zvs-chromium.") as profile:
        d = browser(profile)
        try:
            d.set_page_load_timeout(20)
            d.get(URL)
            links = [a.text for a in d.find_elements(By.CSS_SELECTOR, "#menu a")]
            for s in ("FCX240", "FCX269", "PGROUP", "RESOLVER", "EVENTS", "charts", "metrics"):
                if s not in links:
                    fail("menu has no %s: %s" % (s, links))
            d.save_screenshot(os.path.join(OUT, "web-menu.png"))
            print("ok: the menu lists the reports")
            first = compare(d, "FCX240")
            compare(d, "FCX269")
            for s in ("PGROUP", "EVENTS"):
                d.get(URL + s)
                if not cells(d):
                    fail("%s shows no rows" % s)
                d.save_screenshot(os.path.join(OUT, "web-%s.png" % s.lower()))
            print("ok: PGROUP and EVENTS show their tables")
            # RESOLVER: its table, or the terminal's sentence when no name is watched
            d.get(URL + "RESOLVER")
            if not cells(d) and "No resolver record" not in d.page_source:
                fail("RESOLVER shows neither its table nor why not")
            d.save_screenshot(os.path.join(OUT, "web-resolver.png"))
            print("ok: RESOLVER shows %s" % ("its table" if cells(d) else "that no name is watched"))
            # one interval later the page (refreshing itself) shows the next one
            d.get(URL + "FCX240")
            deadline = time.time() + 4 * INTERVAL + 5
            while title(d) == first:
                if time.time() > deadline:
                    fail("FCX240 still shows the interval ending %s" % first)
                time.sleep(0.2)
            print("ok: new figures after one interval (%s, then %s)" % (first, title(d)))
            compare(d, "FCX240")
            # previous / next as the terminal's --nav
            d.find_element(By.ID, "prev").click()
            back = title(d)
            d.find_element(By.ID, "next").click()
            if title(d) <= back:
                fail("next after previous did not move on")
            print("ok: previous and next")
            # the charts change without a reload
            d.get(URL + "charts")
            d.execute_script("window.zvsMark = 'unchanged page';")
            svg = d.find_element(By.CSS_SELECTOR, "svg.chart")
            end0 = svg.get_attribute("data-end")
            deadline = time.time() + 4 * INTERVAL + 5
            while True:
                upd = d.execute_script("return document.body.dataset.updates || '0';")
                end1 = d.find_element(By.CSS_SELECTOR, "svg.chart").get_attribute("data-end")
                if int(upd) > 0 and end1 != end0:
                    break
                if time.time() > deadline:
                    fail("the chart did not change (updates %s, end %s)" % (upd, end1))
                time.sleep(0.2)
            if d.execute_script("return window.zvsMark;") != "unchanged page":
                fail("the charts page reloaded itself")
            units = d.execute_script(
                "return Array.from(document.querySelectorAll('svg.chart text'))"
                ".map(t => t.textContent);")
            for u in ("bytes/s", "packets/s", "discards/s", "time (UTC)"):
                if u not in units:
                    fail("no axis in %s" % u)
            d.save_screenshot(os.path.join(OUT, "web-charts.png"))
            print("ok: the charts changed without a reload (end %s -> %s), axes in units" %
                  (end0, end1))
        finally:
            d.quit()


main()
