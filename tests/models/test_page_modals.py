"""Modal dialogs are emptied from the page tree (models/page/modals.py): overlays, not the page."""

import gzip

from lxml import etree

import pagesieve
from pagesieve.models.page import parse_page, visible_text, xpath_of
from pagesieve.models.page.modals import KEPT_TEXT_CHARS, empty_modals, is_modal

ARTICLE = "<p>" + "The article's own text, long enough to be a page of its own. " * 5 + "</p>"


def _tree(body: str) -> etree._Element:
    return etree.fromstring(f"<html><body>{body}</body></html>", etree.HTMLParser())


def _element(markup: str) -> etree._Element:
    return etree.fromstring(markup, etree.HTMLParser()).find("body")[0]


def test_what_is_a_modal():
    assert is_modal(_element("<dialog>x</dialog>"))
    assert not is_modal(_element("<dialog open>x</dialog>"))                # an open dialog is shown
    assert is_modal(_element('<div role=" Dialog ">x</div>'))
    assert is_modal(_element('<div role="alertdialog">x</div>'))
    assert is_modal(_element('<div aria-modal="true">x</div>'))
    assert not is_modal(_element('<div role="dialog-like" aria-modal="false">x</div>'))
    assert not is_modal(_element('<div role="main">x</div>'))


def test_modals_are_emptied_and_the_page_around_them_kept():
    root = _tree(ARTICLE + '<div role="dialog" aria-modal="true"><h2>Privacy policy</h2><p>We collect...</p>'
                 "</div>after<dialog><form>Sign up</form></dialog><dialog open>Shown</dialog><p>end</p>")
    assert empty_modals(root) == 2
    text = visible_text(root.find("body"))
    assert "Privacy" not in text and "collect" not in text and "Sign up" not in text
    assert text.endswith("after\n\nShown\n\nend")          # the tail after a modal is the page's, and stays
    # the emptied elements stay, so the XPaths of what follows them still name the page's own elements
    assert [xpath_of(e) for e in root.iter("p")] == ["/html/body/p[1]", "/html/body/p[2]"]


def test_a_modal_inside_a_modal_is_counted_once():
    root = _tree(ARTICLE + '<div aria-modal="true">alpha<div role="dialog">beta</div>gamma</div>')
    assert empty_modals(root) == 1
    assert visible_text(root.find("body")) == visible_text(_tree(ARTICLE).find("body"))


def test_a_page_whose_text_is_all_in_modals_keeps_them():
    inner = "<p>" + "word " * (KEPT_TEXT_CHARS // 5 + 10) + '</p><div role="dialog">nested</div>'
    root = _tree(f'<p>Menu</p><div role="dialog" class="app">{inner}tail</div>')
    before = etree.tostring(root)
    assert empty_modals(root) == 0
    assert etree.tostring(root) == before                # restored as it was, the nested modal too


def test_parse_page_empties_modals_and_the_default_cleaner_never_sees_them():
    html = (f"<html><body><main><h1>Wool runners</h1>{ARTICLE}</main><div role='dialog' aria-modal='true' "
            "id='modal-privacy-policy'><p>" + "Allbirds processes personal information for its business. " * 20
            + "</p></div></body></html>")
    assert "personal information" not in visible_text(parse_page(html.encode()).body)
    doc = pagesieve.extract(html)
    assert "The article's own text" in doc.text and "personal information" not in doc.text


def test_a_real_product_page_loses_its_privacy_policy_modal(shared_data):
    # WCXB 0580 (a 2025 product page): the site's whole privacy policy sits in a Vue modal after the product
    html = gzip.decompress((shared_data / "wcxb" / "input" / "0580.html.gz").read_bytes())
    text = visible_text(parse_page(html).body)
    assert "Our responsibly-sourced Merino wool provides a cozy fit" in text
    assert "as a controller endeavors to protect data" not in text
