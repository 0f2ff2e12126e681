// A rough passphrase strength hint (0..4) from length, character variety and word count. It only
// guides the user; PBKDF2-SHA256 with 600,000 iterations in the worker does the protecting.

export const MIN_PASSPHRASE = 8;

// Bits of guessing work per level; a passphrase of four random common words (about 44 bits)
// lands in "good", a random 12-character mixed password (about 70 bits) in "excellent".
const LEVEL_BITS = [28, 36, 44, 60];

export function estimateBits(value) {
  const text = String(value || "");
  if (!text) return 0;
  let pool = 0;
  if (/[a-z]/.test(text)) pool += 26;
  if (/[A-Z]/.test(text)) pool += 26;
  if (/[0-9]/.test(text)) pool += 10;
  if (/[^a-zA-Z0-9\s]/.test(text)) pool += 33;
  if (/\s/.test(text)) pool += 1;
  // Repeated characters add little: count distinct runs rather than raw length.
  const effective = text.replace(/(.)\1+/g, "$1$1").length;
  const charBits = effective * Math.log2(Math.max(pool, 2));
  // Words from a dictionary are worth about 11 bits each, whatever their length.
  const words = text.trim().split(/[\s\-_.]+/).filter((w) => w.length >= 3).length;
  const wordBits = words >= 3 ? words * 11 : 0;
  // A character count overestimates a sentence; a word count underestimates random characters.
  return Math.round(words >= 3 ? Math.min(charBits, Math.max(wordBits, charBits * 0.35)) : charBits * 0.8);
}

export function strengthLevel(value) {
  const bits = estimateBits(value);
  let level = 0;
  for (const threshold of LEVEL_BITS) if (bits >= threshold) level += 1;
  return level;
}
