// Every string the page shows, in French and English. French is the default when the browser is French.
// t(key, vars) interpolates {name} placeholders; a value may be a function of vars (plurals).

import * as memoryStrings from "./components/memory-strings.js";
import * as offlineStrings from "./components/offline-strings.js";
import * as syncStrings from "./components/sync-strings.js";
import * as egressStrings from "./components/egress-strings.js";
import * as richStrings from "./components/rich-strings.js";
import * as imageStrings from "./components/image-strings.js";
import * as modelStrings from "./components/model-strings.js";
import * as attachStrings from "./components/attach-strings.js";
import * as instructionStrings from "./components/instructions-strings.js";
import * as keyboardStrings from "./components/keyboard-strings.js";
import { KIND_LABELS } from "./contract.js";

const plural = (n, one, many) => (Math.abs(n) >= 2 ? many : one);
const pluralEn = (n, one, many) => (n === 1 ? one : many);

const fr = {
  "app.name": "OpenMasq",
  "app.tagline": "Le modèle ne voit jamais vos vraies données.",
  "common.cancel": "Annuler",
  "common.save": "Enregistrer",
  "common.close": "Fermer",
  "common.chooseFile": "Choisir un fichier…",
  "common.delete": "Supprimer",
  "common.edit": "Modifier",
  "common.rename": "Renommer",
  "common.undo": "Annuler",
  "common.retry": "Réessayer",
  "common.copy": "Copier",
  "common.copied": "Copié",
  "common.confirm": "Confirmer",
  "common.loading": "Chargement…",
  "common.back": "Retour",

  "boot.stage.download": "Téléchargement du moteur",
  "boot.stage.compile": "Compilation",
  "boot.stage.import": "Chargement du code Python",
  "boot.stage.ready": "Prêt",
  "boot.stage.workers": "Démarrage des processus",
  "boot.bytes": "{loaded} sur {total}",
  "boot.failed": "Le démarrage a échoué",
  "boot.failedHint": "Rechargez la page. Si l’erreur persiste, videz le cache du site.",
  "boot.reload": "Recharger",
  "boot.offlineNote": "Après ce premier chargement, l’application fonctionne hors ligne.",

  "accounts.title": "Comptes",
  "accounts.intro": "Chaque compte est chiffré sur cet appareil avec sa phrase secrète. Sans elle, rien ne peut être lu.",
  "accounts.create": "Créer un compte",
  "accounts.createTitle": "Nouveau compte",
  "accounts.label": "Nom du compte",
  "accounts.labelPlaceholder": "Personnel, Travail…",
  "accounts.passphrase": "Phrase secrète",
  "accounts.passphraseConfirm": "Confirmer la phrase secrète",
  "accounts.passphraseHelp": "Plusieurs mots au hasard valent mieux qu’un mot compliqué. Elle ne peut pas être récupérée.",
  "accounts.mismatch": "Les deux phrases secrètes ne sont pas identiques.",
  "accounts.tooShort": "Au moins {n} caractères.",
  "accounts.labelRequired": "Donnez un nom au compte.",
  "accounts.strength": "Robustesse : {level}",
  "accounts.strength.0": "très faible",
  "accounts.strength.1": "faible",
  "accounts.strength.2": "correcte",
  "accounts.strength.3": "bonne",
  "accounts.strength.4": "excellente",
  "accounts.remember": "Se souvenir de moi sur cet appareil",
  "accounts.rememberHelp": "Une clé non exportable, gardée par ce navigateur, ouvre le compte sans phrase secrète. À éviter sur un appareil partagé.",
  "accounts.unlock": "Déverrouiller",
  "accounts.unlockTitle": "Déverrouiller « {label} »",
  "accounts.remembered": "mémorisé sur cet appareil",
  "accounts.created": "créé le {date}",
  "accounts.wrongPassphrase": "Phrase secrète incorrecte. Rien n’a été déchiffré.",
  "accounts.unlocking": "Déchiffrement…",
  "accounts.creating": "Création du compte…",
  "accounts.delete": "Supprimer le compte",
  "accounts.deleteTitle": "Supprimer « {label} » ?",
  "accounts.deleteBody": "Toutes ses conversations, clés d’API et sa mémoire seront effacées de cet appareil. C’est définitif.",
  "accounts.deleteType": "Tapez « {label} » pour confirmer",
  "accounts.deleted": "Compte supprimé",
  "accounts.rename": "Renommer le compte",
  "accounts.renameTitle": "Renommer « {label} »",
  "accounts.renamed": "Compte renommé",
  "accounts.lock": "Verrouiller",
  "accounts.switch": "Changer de compte",
  "accounts.locked": "Compte verrouillé",
  "accounts.autoLocked": "Verrouillé après inactivité",
  "accounts.menu": "Compte « {label} »",

  "nav.main": "Navigation principale",
  "nav.skip": "Aller au contenu",
  "nav.chat": "Messages",
  "nav.providers": "Modèles",
  "nav.settings": "Réglages",
  "nav.about": "À propos",

  "chat.conversations": "Conversations",
  "chat.openList": "Ouvrir la liste des conversations",
  "chat.closeList": "Fermer la liste des conversations",
  "chat.new": "Nouvelle conversation",
  "chat.untitled": "Sans titre",
  "chat.search": "Rechercher",
  "chat.searchPlaceholder": "Rechercher…",
  "chat.noConversations": "Aucune conversation pour l’instant.",
  "chat.noMatch": "Aucune conversation ne correspond.",
  "chat.space": "Espace",
  "chat.space.all": "Tous les espaces",
  "chat.space.none": "Hors espace",
  "chat.space.empty": "Aucune conversation dans cet espace.",
  "chat.deleted": "Conversation « {title} » supprimée",
  "chat.renameLabel": "Nouveau titre",
  "chat.empty": "Écrivez un message. Les noms, e-mails, numéros et identifiants sont remplacés avant l’envoi, et rétablis dans la réponse.",
  "chat.emptyNoConv": "Choisissez une conversation ou commencez-en une nouvelle.",
  "chat.composer": "Votre message",
  "chat.composerPlaceholder": "Écrivez votre message…",
  "chat.send": "Envoyer",
  "chat.stop": "Arrêter",
  "chat.you": "Vous",
  "chat.assistant": "Assistant",
  "chat.interrupted": "Réponse interrompue",
  "chat.wireHide": "Masquer ce que le modèle a vu",
  "chat.wireNone": "Rien n’a été envoyé pour ce message.",
  "chat.redactedCount": (v) => `${v.n} ${plural(v.n, "valeur masquée", "valeurs masquées")}`,
  "chat.settings": "Réglages de la conversation",
  "chat.draftKept": "Votre message est gardé en brouillon.",
  "chat.enterHint": "Entrée pour envoyer, Maj+Entrée pour un retour à la ligne",
  "chat.copyFailed": "Copie impossible",
  "chat.copiedMarkdown": "Copié en Markdown",
  "chat.stopped": "Arrêté",
  "chat.regenerate": "Réessayer",
  "chat.copyText": "Copier le texte",
  "chat.copyMarkdown": "Copier en Markdown",
  "chat.editLabel": "Modifier le message",
  "chat.editHelp": "Les messages suivants restent dans la version précédente.",
  "chat.editSend": "Envoyer",
  "chat.versions": "Versions",
  "chat.versionOf": "Version {n} sur {count}",
  "chat.versionPrevious": "Version précédente",
  "chat.versionNext": "Version suivante",
  "chat.spanTitle": "{kind} — masqué avant l’envoi",

  "error.offline": "Hors ligne : le fournisseur est injoignable. Le message est gardé en brouillon.",
  "error.network": "Le fournisseur est injoignable.",
  "error.timeout": "Le fournisseur n’a pas répondu à temps.",
  "error.blocked": "Requête bloquée : cette adresse n’est pas autorisée. Vérifiez le fournisseur.",
  "error.blockedNoServiceWorker": "Requête bloquée : ce navigateur ne donne pas de service worker à ce site (fenêtre privée, réglage), et sans lui aucun fournisseur distant n’est autorisé. Ouvrez OpenMasq dans une fenêtre normale, ou prenez le modèle intégré.",
  "error.auth": "Le fournisseur a refusé la clé d’API.",
  "error.rate_limit": "Trop de requêtes : le fournisseur demande d’attendre.",
  "error.rateLimitRetry": "Réessayez dans {s} s.",
  "error.server": "Le fournisseur a rencontré une erreur.",
  "error.bad_request": "Le fournisseur a refusé la requête.",
  "error.redaction": "Le masquage a échoué : rien n’a été envoyé.",
  "error.no_provider": "Aucun fournisseur n’est configuré pour cette conversation.",
  "error.unknown": "Une erreur est survenue.",
  "error.stopped": "Arrêté.",
  "error.quota": "Plus de crédit chez le fournisseur : attendre n’y changera rien.",
  "error.context_length": "La conversation est trop longue pour ce modèle.",
  "error.too_large": "La requête est trop volumineuse pour le fournisseur.",
  "error.not_found": "Modèle ou adresse inconnus du fournisseur.",
  "error.overloaded": "Le fournisseur est surchargé pour le moment.",
  "error.html": "Une page web a répondu au lieu de l’API : vérifiez l’adresse de base.",
  "error.malformed": "Réponse du fournisseur illisible.",
  "error.truncated": "La réponse s’est arrêtée avant la fin.",
  "error.provider": "Le fournisseur a signalé une erreur.",
  "error.aborted": "Arrêté.",
  "error.detail": "Détail : {detail}",

  "caption.used": (v) => `Mémoire : ${v.n} ${plural(v.n, "fiche utilisée", "fiches utilisées")}`,
  "caption.profile": "votre profil",
  "caption.usedProfile": "Mémoire : votre profil",
  "caption.skipped": (v) => `${v.n} ${plural(v.n, "fiche écartée", "fiches écartées")}`,
  "caption.skip.budget": "budget dépassé",
  "caption.skip.homograph": "prénom ambigu tapé seul",
  "caption.skip.proposed-needs-mention": "à revoir et pas nommée",
  "caption.skip.proposed-never": "à revoir : jamais envoyée",
  "caption.skip.out-of-scope": "hors de cet espace",
  "caption.noted": (v) => (v.n === 0 ? "Rien de nouveau à retenir" : `Retenu : ${v.n} ${plural(v.n, "élément", "éléments")}`),
  "caption.updated": (v) => `${v.n} ${plural(v.n, "fiche mise à jour", "fiches mises à jour")}`,
  "caption.pending": "Mise en mémoire…",
  "caption.failed": "La mise en mémoire a échoué, réessayez.",

  "convsettings.title": "Réglages de la conversation",
  "convsettings.mode": "Remplacement",
  "convsettings.mode.fake": "Faux crédibles (Marie Dupont → Claire Martin)",
  "convsettings.mode.token": "Jetons opaques ([PERSON1])",
  "convsettings.modePinned": "Fixé au premier envoi de cette conversation.",
  "convsettings.memoryOff": "Pas de mémoire dans cette conversation",
  "convsettings.memoryOffHelp": "Aucune injection, pas d’outil de recherche, pas d’extraction silencieuse. Une demande explicite « retiens… » reste honorée.",
  "convsettings.alwaysMask": "Toujours masquer",
  "convsettings.alwaysMaskHelp": "Un terme par ligne : masqué ici même s’il n’est pas détecté.",
  "convsettings.keep": "Garder en clair",
  "convsettings.keepHelp": "Un terme par ligne : jamais masqué dans cette conversation.",
  "convsettings.space": "Espace",
  "convsettings.spaceHelp": "Regroupe les conversations ; une fiche de la Mémoire rattachée à un espace ne sert que dans ses conversations.",
  "convsettings.saved": "Réglages enregistrés",

  "providers.title": "Modèles",
  "providers.intro": "Les requêtes partent de cet appareil vers le fournisseur choisi, déjà masquées. Les clés d’API sont chiffrées avec votre compte.",
  "providers.add": "Ajouter un fournisseur",
  "providers.editTitle": "Modifier le fournisseur",
  "providers.addTitle": "Nouveau fournisseur",
  "providers.kind": "Type",
  "providers.kind.openai": "OpenAI",
  "providers.kind.anthropic": "Anthropic",
  "providers.kind.compatible": "Compatible OpenAI (adresse de base)",
  "providers.kind.local": "Modèle hors ligne intégré",
  "providers.label": "Nom",
  "providers.baseUrl": "Adresse de base",
  "providers.baseUrlHelp": "Par exemple http://127.0.0.1:11434/v1 pour Ollama.",
  "providers.presets": "Préréglages locaux",
  "providers.presetsLead": "Serveur local :",
  "providers.apiKey": "Clé d’API",
  "providers.apiKeyOptional": "Clé d’API (facultative)",
  "providers.apiKeyKeep": "Laisser vide pour garder la clé enregistrée",
  "providers.hasKey": "clé enregistrée",
  "providers.noKey": "sans clé",
  "providers.model": "Modèle",
  "providers.modelPick": "Choisir un modèle",
  "providers.modelManual": "ou saisir son nom",
  "providers.loadModels": "Lister les modèles",
  "providers.loadingModels": "Interrogation du fournisseur…",
  "providers.modelsFound": (v) => `${v.n} ${plural(v.n, "modèle trouvé", "modèles trouvés")}`,
  "providers.test": "Tester",
  "providers.testing": "Test en cours…",
  "providers.testOk": "Connexion réussie",
  "providers.testFailed": "Échec : {error}",
  "providers.remove": "Retirer",
  "providers.removeTitle": "Retirer « {label} » ?",
  "providers.removeBody": "Sa clé d’API sera effacée. Les conversations qui l’utilisaient passeront au fournisseur par défaut.",
  "providers.removed": "Fournisseur retiré",
  "providers.saved": "Fournisseur enregistré",
  "providers.default": "par défaut",
  "providers.makeDefault": "Utiliser par défaut",
  "providers.localName": "SmolLM2-135M (hors ligne)",
  "providers.localHonest": "Petit modèle qui tourne sur cet appareil, sans réseau. Lent et limité : pour dépanner hors ligne, pas pour un travail sérieux.",
  "providers.urlInvalid": "Adresse invalide : elle doit commencer par https:// (ou http:// pour localhost).",
  "providers.keyRequired": "Ce fournisseur demande une clé d’API.",
  "providers.modelRequired": "Choisissez un modèle.",
  "providers.labelRequired": "Donnez un nom au fournisseur.",

  "settings.title": "Réglages",
  "settings.appearance": "Apparence",
  "settings.language": "Langue",
  "settings.theme": "Thème",
  "settings.theme.auto": "Système",
  "settings.theme.light": "Clair",
  "settings.theme.dark": "Sombre",
  "settings.security": "Sécurité",
  "settings.autolock": "Verrouillage automatique",
  "settings.autolockHelp": "Après ce délai sans activité, le compte est verrouillé et la phrase secrète redemandée.",
  "settings.autolock.0": "Jamais",
  "settings.autolock.n": (v) => `Après ${v.n} min`,
  "settings.privacy": "Masquage",
  "settings.level": "Niveau de masquage par défaut",
  "settings.level.standard": "Allégé (règles seulement)",
  "settings.level.renforce": "Renforcé (recommandé)",
  "settings.level.strict": "Strict (tout masquer)",
  "settings.mode": "Remplacement par défaut",
  "settings.modeHelp": "Pour les nouvelles conversations ; chacune garde le sien dès son premier envoi.",
  "settings.saved": "Réglage enregistré",
  "settings.account": "Compte",
  "settings.accountName": "Compte ouvert : {label}",

  "about.title": "À propos et licences",
  "about.body": "OpenMasq remplace les données personnelles par des substituts avant tout envoi à un modèle, et rétablit les vraies valeurs dans la réponse, sur votre appareil.",
  "about.version": "Version {v}",
  "about.libraries": "Bibliothèques",
  "about.models": "Modèles",
  "about.name": "Nom",
  "about.licence": "Licence",
  "about.use": "Rôle",

};

const en = {
  "app.name": "OpenMasq",
  "app.tagline": "The model never sees your real data.",
  "common.cancel": "Cancel",
  "common.save": "Save",
  "common.close": "Close",
  "common.chooseFile": "Choose a file…",
  "common.delete": "Delete",
  "common.edit": "Edit",
  "common.rename": "Rename",
  "common.undo": "Undo",
  "common.retry": "Retry",
  "common.copy": "Copy",
  "common.copied": "Copied",
  "common.confirm": "Confirm",
  "common.loading": "Loading…",
  "common.back": "Back",

  "boot.stage.download": "Downloading the engine",
  "boot.stage.compile": "Compiling",
  "boot.stage.import": "Loading the Python code",
  "boot.stage.ready": "Ready",
  "boot.stage.workers": "Starting workers",
  "boot.bytes": "{loaded} of {total}",
  "boot.failed": "Start-up failed",
  "boot.failedHint": "Reload the page. If the error persists, clear the site’s cache.",
  "boot.reload": "Reload",
  "boot.offlineNote": "After this first load, the app works offline.",

  "accounts.title": "Accounts",
  "accounts.intro": "Each account is encrypted on this device with its passphrase. Without it, nothing can be read.",
  "accounts.create": "Create an account",
  "accounts.createTitle": "New account",
  "accounts.label": "Account name",
  "accounts.labelPlaceholder": "Personal, Work…",
  "accounts.passphrase": "Passphrase",
  "accounts.passphraseConfirm": "Confirm the passphrase",
  "accounts.passphraseHelp": "Several random words beat one clever word. It cannot be recovered.",
  "accounts.mismatch": "The two passphrases differ.",
  "accounts.tooShort": "At least {n} characters.",
  "accounts.labelRequired": "Give the account a name.",
  "accounts.strength": "Strength: {level}",
  "accounts.strength.0": "very weak",
  "accounts.strength.1": "weak",
  "accounts.strength.2": "fair",
  "accounts.strength.3": "good",
  "accounts.strength.4": "excellent",
  "accounts.remember": "Remember me on this device",
  "accounts.rememberHelp": "A non-exportable key kept by this browser opens the account without the passphrase. Avoid on a shared device.",
  "accounts.unlock": "Unlock",
  "accounts.unlockTitle": "Unlock “{label}”",
  "accounts.remembered": "remembered on this device",
  "accounts.created": "created {date}",
  "accounts.wrongPassphrase": "Wrong passphrase. Nothing was decrypted.",
  "accounts.unlocking": "Decrypting…",
  "accounts.creating": "Creating the account…",
  "accounts.delete": "Delete account",
  "accounts.deleteTitle": "Delete “{label}”?",
  "accounts.deleteBody": "All its conversations, API keys and memory will be erased from this device. This cannot be undone.",
  "accounts.deleteType": "Type “{label}” to confirm",
  "accounts.deleted": "Account deleted",
  "accounts.rename": "Rename account",
  "accounts.renameTitle": "Rename “{label}”",
  "accounts.renamed": "Account renamed",
  "accounts.lock": "Lock",
  "accounts.switch": "Switch account",
  "accounts.locked": "Account locked",
  "accounts.autoLocked": "Locked after inactivity",
  "accounts.menu": "Account “{label}”",

  "nav.main": "Main navigation",
  "nav.skip": "Skip to content",
  "nav.chat": "Chats",
  "nav.providers": "Providers",
  "nav.settings": "Settings",
  "nav.about": "About",

  "chat.conversations": "Conversations",
  "chat.openList": "Open the conversation list",
  "chat.closeList": "Close the conversation list",
  "chat.new": "New conversation",
  "chat.untitled": "Untitled",
  "chat.search": "Search",
  "chat.searchPlaceholder": "Search…",
  "chat.noConversations": "No conversations yet.",
  "chat.noMatch": "No conversation matches.",
  "chat.space": "Space",
  "chat.space.all": "All spaces",
  "chat.space.none": "No space",
  "chat.space.empty": "No conversation in this space.",
  "chat.deleted": "Conversation “{title}” deleted",
  "chat.renameLabel": "New title",
  "chat.empty": "Write a message. Names, e-mails, numbers and identifiers are replaced before sending and put back in the reply.",
  "chat.emptyNoConv": "Pick a conversation or start a new one.",
  "chat.composer": "Your message",
  "chat.composerPlaceholder": "Write your message…",
  "chat.send": "Send",
  "chat.stop": "Stop",
  "chat.you": "You",
  "chat.assistant": "Assistant",
  "chat.interrupted": "Reply interrupted",
  "chat.wireHide": "Hide what the model saw",
  "chat.wireNone": "Nothing was sent for this message.",
  "chat.redactedCount": (v) => `${v.n} ${pluralEn(v.n, "value masked", "values masked")}`,
  "chat.settings": "Conversation settings",
  "chat.draftKept": "Your message is kept as a draft.",
  "chat.enterHint": "Enter to send, Shift+Enter for a new line",
  "chat.copyFailed": "Could not copy",
  "chat.copiedMarkdown": "Copied as Markdown",
  "chat.stopped": "Stopped",
  "chat.regenerate": "Regenerate",
  "chat.copyText": "Copy text",
  "chat.copyMarkdown": "Copy as Markdown",
  "chat.editLabel": "Edit the message",
  "chat.editHelp": "The messages after it stay in the previous version.",
  "chat.editSend": "Send",
  "chat.versions": "Versions",
  "chat.versionOf": "Version {n} of {count}",
  "chat.versionPrevious": "Previous version",
  "chat.versionNext": "Next version",
  "chat.spanTitle": "{kind} — masked before sending",

  "error.offline": "Offline: the provider cannot be reached. The message is kept as a draft.",
  "error.network": "The provider cannot be reached.",
  "error.timeout": "The provider did not answer in time.",
  "error.blocked": "Request blocked: this address is not allowed. Check the provider.",
  "error.blockedNoServiceWorker": "Request blocked: this browser gives this site no service worker (a private window, a setting), and without it no remote provider is allowed. Open OpenMasq in a normal window, or use the built-in model.",
  "error.auth": "The provider rejected the API key.",
  "error.rate_limit": "Too many requests: the provider asks to wait.",
  "error.rateLimitRetry": "Retry in {s} s.",
  "error.server": "The provider had an error.",
  "error.bad_request": "The provider rejected the request.",
  "error.redaction": "Masking failed: nothing was sent.",
  "error.no_provider": "No provider is set for this conversation.",
  "error.unknown": "Something went wrong.",
  "error.stopped": "Stopped.",
  "error.quota": "No credit left at the provider: waiting will not help.",
  "error.context_length": "The conversation is too long for this model.",
  "error.too_large": "The request is too large for the provider.",
  "error.not_found": "The provider does not know this model or address.",
  "error.overloaded": "The provider is overloaded right now.",
  "error.html": "A web page answered instead of the API: check the base URL.",
  "error.malformed": "The provider’s answer could not be read.",
  "error.truncated": "The reply stopped before the end.",
  "error.provider": "The provider reported an error.",
  "error.aborted": "Stopped.",
  "error.detail": "Detail: {detail}",

  "caption.used": (v) => `Memory: ${v.n} ${pluralEn(v.n, "card used", "cards used")}`,
  "caption.profile": "your profile",
  "caption.usedProfile": "Memory: your profile",
  "caption.skipped": (v) => `${v.n} ${pluralEn(v.n, "card left out", "cards left out")}`,
  "caption.skip.budget": "over budget",
  "caption.skip.homograph": "ambiguous first name typed alone",
  "caption.skip.proposed-needs-mention": "to review and not named",
  "caption.skip.proposed-never": "to review: never sent",
  "caption.skip.out-of-scope": "outside this space",
  "caption.noted": (v) => (v.n === 0 ? "Nothing new to remember" : `Remembered: ${v.n} ${pluralEn(v.n, "item", "items")}`),
  "caption.updated": (v) => `${v.n} ${pluralEn(v.n, "card updated", "cards updated")}`,
  "caption.pending": "Remembering…",
  "caption.failed": "Remembering failed, try again.",

  "convsettings.title": "Conversation settings",
  "convsettings.mode": "Replacement",
  "convsettings.mode.fake": "Believable fakes (Marie Dupont → Claire Martin)",
  "convsettings.mode.token": "Opaque tokens ([PERSON1])",
  "convsettings.modePinned": "Pinned at this conversation’s first send.",
  "convsettings.memoryOff": "No memory in this conversation",
  "convsettings.memoryOffHelp": "No injection, no search tool, no silent extraction. An explicit “remember…” is still honoured.",
  "convsettings.alwaysMask": "Always mask",
  "convsettings.alwaysMaskHelp": "One term per line: masked here even when not detected.",
  "convsettings.keep": "Keep in clear",
  "convsettings.keepHelp": "One term per line: never masked in this conversation.",
  "convsettings.space": "Space",
  "convsettings.spaceHelp": "Groups conversations; a Memory card given a space is used only in that space’s conversations.",
  "convsettings.saved": "Settings saved",

  "providers.title": "Providers",
  "providers.intro": "Requests go from this device to the chosen provider, already masked. API keys are encrypted with your account.",
  "providers.add": "Add a provider",
  "providers.editTitle": "Edit provider",
  "providers.addTitle": "New provider",
  "providers.kind": "Kind",
  "providers.kind.openai": "OpenAI",
  "providers.kind.anthropic": "Anthropic",
  "providers.kind.compatible": "OpenAI-compatible (base URL)",
  "providers.kind.local": "Bundled offline model",
  "providers.label": "Name",
  "providers.baseUrl": "Base URL",
  "providers.baseUrlHelp": "For example http://127.0.0.1:11434/v1 for Ollama.",
  "providers.presets": "Local presets",
  "providers.presetsLead": "Local server:",
  "providers.apiKey": "API key",
  "providers.apiKeyOptional": "API key (optional)",
  "providers.apiKeyKeep": "Leave empty to keep the stored key",
  "providers.hasKey": "key stored",
  "providers.noKey": "no key",
  "providers.model": "Model",
  "providers.modelPick": "Pick a model",
  "providers.modelManual": "or type its name",
  "providers.loadModels": "List models",
  "providers.loadingModels": "Asking the provider…",
  "providers.modelsFound": (v) => `${v.n} ${pluralEn(v.n, "model found", "models found")}`,
  "providers.test": "Test",
  "providers.testing": "Testing…",
  "providers.testOk": "Connection works",
  "providers.testFailed": "Failed: {error}",
  "providers.remove": "Remove",
  "providers.removeTitle": "Remove “{label}”?",
  "providers.removeBody": "Its API key will be erased. Conversations that used it will switch to the default provider.",
  "providers.removed": "Provider removed",
  "providers.saved": "Provider saved",
  "providers.default": "default",
  "providers.makeDefault": "Use by default",
  "providers.localName": "SmolLM2-135M (offline)",
  "providers.localHonest": "A small model that runs on this device, with no network. Slow and limited: a fallback for offline moments, not for serious work.",
  "providers.urlInvalid": "Invalid address: it must start with https:// (or http:// for localhost).",
  "providers.keyRequired": "This provider needs an API key.",
  "providers.modelRequired": "Pick a model.",
  "providers.labelRequired": "Give the provider a name.",

  "settings.title": "Settings",
  "settings.appearance": "Appearance",
  "settings.language": "Language",
  "settings.theme": "Theme",
  "settings.theme.auto": "System",
  "settings.theme.light": "Light",
  "settings.theme.dark": "Dark",
  "settings.security": "Security",
  "settings.autolock": "Auto-lock",
  "settings.autolockHelp": "After this long without activity, the account locks and asks for the passphrase again.",
  "settings.autolock.0": "Never",
  "settings.autolock.n": (v) => `After ${v.n} min`,
  "settings.privacy": "Masking",
  "settings.level": "Default masking level",
  "settings.level.standard": "Light (rules only)",
  "settings.level.renforce": "Reinforced (recommended)",
  "settings.level.strict": "Strict (mask everything)",
  "settings.mode": "Default replacement",
  "settings.modeHelp": "For new conversations; each keeps its own from its first send.",
  "settings.saved": "Setting saved",
  "settings.account": "Account",
  "settings.accountName": "Open account: {label}",

  "about.title": "About and licences",
  "about.body": "OpenMasq replaces personal data with stand-ins before anything is sent to a model, and puts the real values back into the reply, on your device.",
  "about.version": "Version {v}",
  "about.libraries": "Libraries",
  "about.models": "Models",
  "about.name": "Name",
  "about.licence": "Licence",
  "about.use": "Role",

};

export const LANGS = { fr: "Français", en: "English" };
// The Mémoire's strings live in their own file (components/memory-strings.js).
Object.assign(fr, memoryStrings.fr);
Object.assign(en, memoryStrings.en);
Object.assign(fr, egressStrings.fr);
Object.assign(en, egressStrings.en);
Object.assign(fr, offlineStrings.fr); // the offline copy, the models and the storage (components/offline-strings.js)
Object.assign(en, offlineStrings.en);
Object.assign(fr, syncStrings.fr); // sync between devices (components/sync-strings.js, docs/sync.md)
Object.assign(en, syncStrings.en);
Object.assign(fr, richStrings.fr); // code blocks, math and backups (components/rich-strings.js)
Object.assign(en, richStrings.en);
Object.assign(fr, imageStrings.fr); // attached images: OCR, the masked image, consent (components/image-strings.js)
Object.assign(en, imageStrings.en);
Object.assign(fr, modelStrings.fr); // the first run, the header's model and its picker (components/model-strings.js)
Object.assign(en, modelStrings.en);
Object.assign(fr, attachStrings.fr); // attached files (components/attach-strings.js)
Object.assign(en, attachStrings.en);
Object.assign(fr, instructionStrings.fr); // system prompts, personas, tokens and cost (components/instructions-strings.js)
Object.assign(en, instructionStrings.en);
Object.assign(fr, keyboardStrings.fr); // shortcuts and the command palette (components/keyboard-strings.js)
Object.assign(en, keyboardStrings.en);
Object.assign(fr, KIND_LABELS.fr); // the kinds' labels: generated from py/openmasq/contract.py (labels.js)
Object.assign(en, KIND_LABELS.en);
const TABLES = { fr, en };
// Language and theme are display preferences, not personal data: the only things kept in localStorage,
// so the locked screens already speak the user's language.
const LANG_KEY = "openmasq.lang";

let current = "fr";

export function browserLang() {
  const langs = navigator.languages?.length ? navigator.languages : [navigator.language || "en"];
  return String(langs[0] || "en").toLowerCase().startsWith("fr") ? "fr" : "en";
}

export function initialLang() {
  try {
    const stored = localStorage.getItem(LANG_KEY);
    if (stored && TABLES[stored]) return stored;
  } catch { /* storage may be disabled; fall back to the browser */ }
  return browserLang();
}

export function setLang(lang) {
  current = TABLES[lang] ? lang : "en";
  document.documentElement.lang = current;
  try { localStorage.setItem(LANG_KEY, current); } catch { /* display preference only */ }
  return current;
}

export function lang() {
  return current;
}

export function t(key, vars = {}) {
  const value = TABLES[current][key] ?? en[key];
  if (value === undefined) return key;
  if (typeof value === "function") return value(vars);
  return value.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

/** The interface string of an error's kind. A connection refused while no service worker controls the page
 *  is no provider's fault: the service worker is what allows a provider's address (docs/web.md). */
export function errorKey(error) {
  if (error?.kind === "blocked" && !globalThis.navigator?.serviceWorker?.controller) return "error.blockedNoServiceWorker";
  return `error.${error?.kind}`;
}

export function hasKey(key) {
  return key in TABLES[current] || key in en;
}

export function formatDate(value) {
  if (value === undefined || value === null || value === "") return "";
  const date = typeof value === "number" ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleDateString(current === "fr" ? "fr-FR" : "en-GB", { day: "numeric", month: "short", year: "numeric" });
}

export function formatTime(value) {
  if (value === undefined || value === null || value === "") return "";
  const date = typeof value === "number" ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  const now = new Date();
  const sameDay = date.toDateString() === now.toDateString();
  const locale = current === "fr" ? "fr-FR" : "en-GB";
  return sameDay
    ? date.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString(locale, { day: "numeric", month: "short" });
}

export function formatBytes(n) {
  if (!Number.isFinite(n) || n <= 0) return "0";
  const mb = n / (1024 * 1024);
  const unit = current === "fr" ? "Mo" : "MB";
  return `${mb >= 10 ? mb.toFixed(0) : mb.toFixed(1)} ${unit}`;
}

export const STRINGS = TABLES;
