// The strings of rich replies (code blocks, math) and of conversation backups, French and English;
// i18n.js merges them into its tables.

export const fr = {
  "code.copy": "Copier le code",
  "code.plain": "texte",
  "code.copied": "Code copié",

  "backup.title": "Conversations : sauvegarde",
  "backup.warning": "Toutes les conversations du compte : en JSON pour les réimporter, en Markdown pour les lire. Le fichier contient vos vraies données : chiffrez-le avant de le confier à qui que ce soit.",
  "backup.exportJson": "Exporter en JSON",
  "backup.exportMarkdown": "Exporter en Markdown",
  "backup.exported": (v) => `${v.n} conversation${v.n >= 2 ? "s" : ""} exportée${v.n >= 2 ? "s" : ""}`,
  "backup.import": "Importer une sauvegarde (JSON)",
  "backup.imported": (v) => `${v.n} conversation${v.n >= 2 ? "s" : ""} ajoutée${v.n >= 2 ? "s" : ""}`,
  "backup.skipped": (v) => `${v.n} déjà présente${v.n >= 2 ? "s" : ""}, laissée${v.n >= 2 ? "s" : ""} telle${v.n >= 2 ? "s" : ""} quelle${v.n >= 2 ? "s" : ""} :`,
  "backup.why.same-id": "la même conversation",
  "backup.why.same-content": "les mêmes messages",
  "backup.importFailed": "Import impossible, rien n’a changé : {error}",
  "backup.untitled": "Sans titre",
};

export const en = {
  "code.copy": "Copy code",
  "code.plain": "text",
  "code.copied": "Code copied",

  "backup.title": "Conversations: backup",
  "backup.warning": "Every conversation of the account: as JSON to re-import them, as Markdown to read them. The file holds your real data: encrypt it before you hand it to anyone.",
  "backup.exportJson": "Export as JSON",
  "backup.exportMarkdown": "Export as Markdown",
  "backup.exported": (v) => `${v.n} conversation${v.n === 1 ? "" : "s"} exported`,
  "backup.import": "Import a backup (JSON)",
  "backup.imported": (v) => `${v.n} conversation${v.n === 1 ? "" : "s"} added`,
  "backup.skipped": (v) => `${v.n} already here, left as they are:`,
  "backup.why.same-id": "the same conversation",
  "backup.why.same-content": "the same messages",
  "backup.importFailed": "Import failed, nothing changed: {error}",
  "backup.untitled": "Untitled",
};
