// What the page calls the engine's values, in the interface's language: a redacted value's kind and colour,
// why a memory card was not injected, what a journal entry's before/after texts mean. The values and the
// kinds' labels and colours come from the generated contract (py/openmasq/contract.py); the other labels
// from the string tables, which tests/host/test_contract.py checks hold one for every value.
import { t, hasKey } from "./i18n.js";
import { KIND_FAMILIES, FALLBACK_FAMILY, FALLBACK_KIND, LABEL_PREFIX } from "./contract.js";

/** The colour family of a fine kind (`.fam-<family>`); a kind this build does not know is a secret. */
export const familyOf = (kind) => KIND_FAMILIES[kind] || FALLBACK_FAMILY;

/** The label of a fine kind; "sensitive value" for a kind this build does not know. */
export const kindLabel = (kind) => enumLabel("kind", kind, t(`${LABEL_PREFIX.kind}${FALLBACK_KIND}`));

/** The label of one value of a contract enum (ENUMS), or `fallback` (the value itself by default). */
export function enumLabel(name, value, fallback = value) {
  const key = `${LABEL_PREFIX[name]}${value}`;
  return hasKey(key) ? t(key) : fallback;
}

/** Why a card was not injected in a send (the caption under the reply). */
export const skipReasonLabel = (reason) => enumLabel("skipReason", reason);

/** A journal entry's before or after text as shown: an enum value (entry.values names the enum) is labelled,
 *  free text (facts, names) is shown as written. */
export function journalText(entry, which) {
  const text = entry[which];
  if (text === undefined || text === null || !entry.values) return text;
  return enumLabel(entry.values, text);
}
