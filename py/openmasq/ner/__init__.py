"""The on-device NER model (PER / ORG / LOC, models/ner/): `features` (text -> the model's integer arrays) and
`decode` (the model's scores -> spans) are pure and run in Pyodide too; `runtime` runs the model on CPython
(onnxruntime, the `models` extra). Importing this package imports neither onnxruntime nor numpy."""
