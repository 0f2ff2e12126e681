// The strings of rich replies (code blocks, math) and of conversation backups, French and English;
// i18n.js merges them into its tables.

export const fr = {
  "code.copy": "Copier le code",
  "code.plain": "texte",
  "code.copied": "Code copié",
};

export const en = {
  "code.copy": "Copy code",
  "code.plain": "text",
  "code.copied": "Code copied",
};
