"""Every bound the attachment readers keep, in one place (the app says them before an upload, the
proxy refuses past them). A bound is a size a real document stays under by far, and that a hostile
one (a zip bomb, a PDF of a million pages, a one-line CSV of 100 MB) reaches quickly."""

from __future__ import annotations

MiB = 1024 * 1024

# The file as given (its bytes), and all the files of one message together.
MAX_FILE_BYTES = 10 * MiB
MAX_MESSAGE_BYTES = 25 * MiB
MAX_FILES_PER_MESSAGE = 10

# The extracted text of one file, and of all the files of one message (what the engine redacts:
# about 1 s per 100 kB on a laptop, several in the browser).
MAX_TEXT_CHARS = 400_000
MAX_MESSAGE_TEXT_CHARS = 800_000

# Zip containers (DOCX, XLSX, PPTX, ODT, ODS): members read, bytes once inflated (one member and
# all of them), and how much a member may inflate (deflated XML is 5-20x; a bomb is 1000x).
MAX_ZIP_MEMBERS = 5_000
MAX_MEMBER_BYTES = 32 * MiB
MAX_UNZIPPED_BYTES = 96 * MiB
MAX_COMPRESSION_RATIO = 200
# A member this small may inflate more than the ratio says (a run of empty cells).
RATIO_FREE_BYTES = 1 * MiB

# PDF: pages read (a 2,000-page PDF is a book), and the bytes a page's content may inflate to.
MAX_PDF_PAGES = 2_000

# Spreadsheets: cells read in all sheets (a million is a large workbook) and sheets.
MAX_CELLS = 1_000_000
MAX_SHEETS = 200

# E-mail: parts walked (a message with thousands of parts is built to hurt).
MAX_EMAIL_PARTS = 500

# What a file name may be once shown ("[Attachment: name]").
MAX_NAME_CHARS = 200
