"""Person names without a model: lexicon full names, honorific names, strong contexts, echoes of
names already seen, and what must never be read as a person."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scaling import assert_linear

from openmasq.redact import RedactOptions, Vault, pseudonymise
from openmasq.redact.names import detect_handles, detect_names


def values(text: str, known: Iterable[str] = ()) -> list[str]:
    return [span.value for span in detect_names(text, known=known)]


# --- full names from the lexicon ------------------------------------------------------------------

FULL_NAMES = [
    # French
    ("Hier, Jean Dupont est passé au bureau.", ["Jean Dupont"]),
    ("J'ai déjeuné avec Claire Lefèvre et Thomas Bernard.", ["Claire Lefèvre", "Thomas Bernard"]),
    ("Jean-Pierre Martin arrive demain.", ["Jean-Pierre Martin"]),
    ("Le dossier de Marie-Claire Lefèvre est complet.", ["Marie-Claire Lefèvre"]),
    ("Anne-Sophie Moreau a signé.", ["Anne-Sophie Moreau"]),
    ("Envoie-le à Élodie Brochard.", ["Élodie Brochard"]),
    ("Gaëlle Ménard est en copie.", ["Gaëlle Ménard"]),
    ("Le poème de Jean de La Fontaine.", ["Jean de La Fontaine"]),
    ("Une lettre de Pierre de Coubertin.", ["Pierre de Coubertin"]),
    ("Une citation de Charles de Gaulle.", ["Charles de Gaulle"]),
    ("Un roman de Jean d'Ormesson.", ["Jean d'Ormesson"]),
    ("Contact : Jean DUPONT", ["Jean DUPONT"]),
    ("DUPONT Jean, né le 3 mars 1980", ["DUPONT Jean"]),
    ("MARTIN Anne-Sophie, service comptable", ["MARTIN Anne-Sophie"]),
    ("JEAN DUPONT EST VENU", ["JEAN DUPONT"]),
    ("Nous avons reçu Jean Paul Marie Dupont.", ["Jean Paul Marie Dupont"]),
    ("J'ai rencontré Karim Benali à Lyon.", ["Karim Benali"]),
    ("C'est Julien Moreau qui reprend le dossier.", ["Julien Moreau"]),
    ("Rose Lefèvre viendra.", ["Rose Lefèvre"]),
    ("Florence Dupont a appelé.", ["Florence Dupont"]),
    # English
    ("Yesterday Michael Johnson called.", ["Michael Johnson"]),
    ("Please forward this to Emily Clarke.", ["Emily Clarke"]),
    ("Daniel O'Brien will handle the booking.", ["Daniel O'Brien"]),
    ("Mary-Kate Olsen is not involved.", ["Mary-Kate Olsen"]),
    ("John F. Kennedy was elected in 1960.", ["John F. Kennedy"]),
    ("Ask Sarah Connor about it.", ["Sarah Connor"]),
    ("Grace Kelly starred in it.", ["Grace Kelly"]),
    ("Paris Hilton was there.", ["Paris Hilton"]),
    # German, Dutch
    ("Gestern hat Anna Schmidt angerufen.", ["Anna Schmidt"]),
    ("Hans Müller und Jürgen Weiß kommen.", ["Hans Müller", "Jürgen Weiß"]),
    ("Ludwig van Beethoven hat das komponiert.", ["Ludwig van Beethoven"]),
    ("Ik zag Vincent van der Berg gisteren.", ["Vincent van der Berg"]),
    ("Jan de Vries komt morgen.", ["Jan de Vries"]),
    # Spanish, Italian, Portuguese
    ("Ayer llamó María García.", ["María García"]),
    ("La factura de José Núñez.", ["José Núñez"]),
    ("Ieri ha chiamato Giuseppe Rossi.", ["Giuseppe Rossi"]),
    ("Ho visto Giulia Bianchi al bar.", ["Giulia Bianchi"]),
    ("Ana Paula Souza chegou.", ["Ana Paula Souza"]),
]


@pytest.mark.parametrize("text, expected", FULL_NAMES)
def test_a_first_name_with_its_surnames_is_a_person(text: str, expected: list[str]) -> None:
    assert values(text) == expected


def test_lexicon_names_are_person_spans_from_the_lexicon() -> None:
    [span] = detect_names("Hier, Jean Dupont est passé.")
    assert (span.kind, span.source) == ("person", "lexicon")
    assert 0.8 <= span.score <= 1.0


# --- after an honorific ---------------------------------------------------------------------------

HONORIFIC_NAMES = [
    ("M. Dupont est là.", ["Dupont"]),
    ("Rendez-vous avec Mme Lefèvre.", ["Lefèvre"]),
    ("Mlle Zorbec a répondu.", ["Zorbec"]),
    ("Dr Martin consulte le lundi.", ["Martin"]),
    ("Le Pr Raoult a parlé.", ["Raoult"]),
    ("Maître Garnier plaide demain.", ["Garnier"]),
    ("Me Vaudel représente le client.", ["Vaudel"]),
    ("le docteur Vexmir est arrivé", ["Vexmir"]),
    ("Le lleva el doctor Benítez en el centro de salud.", ["Benítez"]),
    ("il professore Bianchi ha detto di no", ["Bianchi"]),
    ("Mme Claire Lefèvre a signé.", ["Claire Lefèvre"]),
    ("M. de Villepin a parlé.", ["de Villepin"]),
    ("MME DUPONT", ["DUPONT"]),
    ("Mr Smith called.", ["Smith"]),
    ("Mrs. Hudson is downstairs.", ["Hudson"]),
    ("Ms Okafor will join.", ["Okafor"]),
    ("Sir Alistair Crane", ["Alistair Crane"]),
    ("Herr Müller kommt.", ["Müller"]),
    ("Sehr geehrte Frau Schmidt,", ["Schmidt"]),
    ("Herr Dr. Becker", ["Becker"]),
    ("La Sra. García llegó.", ["García"]),
    ("El Sr. Zurita firmó.", ["Zurita"]),
    ("La Sig.ra Bianchi arriva.", ["Bianchi"]),
    ("Il Dott. Esposito", ["Esposito"]),
    ("Dhr. Jansen belt.", ["Jansen"]),
    ("Mevr. de Jong", ["de Jong"]),
]


@pytest.mark.parametrize("text, expected", HONORIFIC_NAMES)
def test_the_name_after_an_honorific_is_a_person_even_if_unknown(text: str, expected: list[str]) -> None:
    assert values(text) == expected


def test_the_honorific_is_not_part_of_the_span_and_the_source_is_context() -> None:
    [span] = detect_names("Bonsoir. M. Zorbec arrive.")
    assert (span.value, span.source) == ("Zorbec", "context")


@pytest.mark.parametrize(
    "text", ["M. le Maire a parlé.", "Monsieur le Président,", "Madame, Monsieur,", "Dr. Who", "Mme la Directrice"]
)
def test_an_honorific_before_a_title_or_nothing_finds_no_one(text: str) -> None:
    assert values(text) == []


# --- strong contexts -----------------------------------------------------------------------------

CONTEXT_NAMES = [
    ("Bonjour, je m'appelle Karlo Vexmir.", ["Karlo Vexmir"]),
    ("Moi, c'est Ondine.", ["Ondine"]),
    ("Hello, my name is Ondine.", ["Ondine"]),
    ("Ich heiße Lukas.", ["Lukas"]),
    ("Me llamo Lucía.", ["Lucía"]),
    ("Mi chiamo Giulia.", ["Giulia"]),
    ("Ik heet Sanne.", ["Sanne"]),
    ("Bonjour Marie,", ["Marie"]),
    ("Bonjour Marie et Paul,", ["Marie", "Paul"]),
    ("Hi Grace,", ["Grace"]),
    ("Dear Anna, thanks for the file.", ["Anna"]),
    ("Cher Thomas, merci.", ["Thomas"]),
    ("Liebe Anna,", ["Anna"]),
    ("Hola Carmen, ¿qué tal?", ["Carmen"]),
    ("cc Anna, Ben", ["Anna", "Ben"]),
    ("Merci Pierre !", ["Pierre"]),
    ("Signé : Camille", ["Camille"]),
    ("Cordialement,\nAntoine", ["Antoine"]),
    ("Best regards,\n\nTom", ["Tom"]),
    ("Bien à vous,\nKarlo Vexmir", ["Karlo Vexmir"]),
    ("Kind regards,\n\nTamsin Whitlock | Practice Manager\nGreenslopes Family Dental", ["Tamsin Whitlock"]),
    ("Saludos,\nMaite Urrutia – Directora", ["Maite Urrutia"]),
    ("Je suis Marie, la nouvelle stagiaire.", ["Marie"]),
    ("I'm Sarah and I'll help you.", ["Sarah"]),
]


@pytest.mark.parametrize("text, expected", CONTEXT_NAMES)
def test_a_lone_first_name_in_a_strong_context_is_a_person(text: str, expected: list[str]) -> None:
    assert values(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Je suis passé avec Marie au marché.",
        "Marie arrive demain.",
        "On a vu Thomas hier.",
        "Merci Pierre pour ton aide",  # a homograph needs the greeting to end there
        "Bonjour à tous,",
        "Hi team,",
        "Dear Sir or Madam,",
        "Cordialement,\nService Client",
        "Cordialement,\nAcme",
    ],
)
def test_a_lone_first_name_without_a_strong_context_is_not_a_person(text: str) -> None:
    assert values(text) == []


# --- names the lexicon does not know, read from their context --------------------------------------

UNKNOWN_NAMES = [
    # names of the wider world's lists
    ("J'ai déjeuné avec Kwabena Boateng hier.", ["Kwabena Boateng"]),
    ("Thanks, Tran Van Duc will send it.", ["Tran Van Duc"]),
    ("Hier Morozov Pavel a appelé.", ["Morozov Pavel"]),
    ("Le dossier de Zorvan Nkosi est prêt.", ["Zorvan Nkosi"]),  # one known name word
    # two unknown name words after a person cue
    ("Rendez-vous avec Zorvan Kelidu demain.", ["Zorvan Kelidu"]),
    ("Une lettre pour ma tante, Zorana Kelidu, à relire.", ["Zorana Kelidu"]),
    ("I spoke with Zorvan Kelidu yesterday.", ["Zorvan Kelidu"]),
    # before a role or an affiliation, beside their e-mail address
    ("Zorvan Kelidu, directeur financier, a signé.", ["Zorvan Kelidu"]),
    ("Zorvan Kelidu (Head of Sales) joined today.", ["Zorvan Kelidu"]),
    ("Zorvan Kelidu, our new warehouse manager, starts Monday.", ["Zorvan Kelidu"]),
    ("Zorvan Kelidu from Brightwave called.", ["Zorvan Kelidu"]),
    ("Écris à Zorvan Kelidu (z.kelidu@exemple.fr) pour confirmer.", ["Zorvan Kelidu"]),
    # a mail header list, a greeting
    ("cc: Zorvan Kelidu, Amira Tolbek\nObjet : budget", ["Zorvan Kelidu", "Amira Tolbek"]),
    ("Bonjour Zorvana,", ["Zorvana"]),
    ("Hi Zorvan Kelidu,", ["Zorvan Kelidu"]),
    # one first name after an addressing verb, or as a vocative
    ("Peux-tu appeler Mathis demain ?", ["Mathis"]),
    ("Lucas, peux-tu relire ?", ["Lucas"]),
    # codes glued to a name, a company after a name, a famous name before a noun
    ("Virement à Yaw Boateng GB29 NWBK 6016 1331 9268 19 demain.", ["Yaw Boateng"]),
    ("Jean Moreau de Vexalis Conseil relit.", ["Jean Moreau"]),
    ("Hat Albert Einstein Physik gelehrt?", ["Albert Einstein"]),
    ("Termin bei Herrn Zorbek.", ["Zorbek"]),
    # a request's verb is not part of the name that follows it
    ("Rappelle Marie Dupont.", ["Marie Dupont"]),
    ("Relance Yaw Boateng demain.", ["Yaw Boateng"]),
]


@pytest.mark.parametrize("text, expected", UNKNOWN_NAMES)
def test_names_the_lexicon_does_not_know_are_read_from_their_context(text: str, expected: list[str]) -> None:
    assert values(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Zorvan Kelidu arrive demain.",  # two unknown words, nothing says they are a person
        "I loved Hong Kong Disneyland.",
        "The Golden Gate Bridge is red.",
        "Meeting with Product Marketing tomorrow.",
        "Send it to Customer Support please.",
        "We use Visual Studio Code every day.",
        "Cher Monsieur, merci.",
        "Félicitations Beaucoup !",
        "Peux-tu appeler Paris demain ?",
        "Rendez-vous avec Google Drive ouvert.",
        # a town and its state or province in an address
        "P.O. Box 4421, Austin TX 78765",
        "12 King St, Halifax NS B3J 2R8",
    ],
)
def test_capitalised_words_without_a_person_context_are_not_read_as_unknown_names(text: str) -> None:
    assert values(text) == []


# --- echoes of names already seen ------------------------------------------------------------------


def test_a_surname_alone_counts_once_the_full_name_was_seen() -> None:
    text = "Jean Dupont est venu. Plus tard, Dupont a dit que DUPONT était là. La voiture : Dupont's."
    assert values(text) == ["Jean Dupont", "Dupont", "DUPONT", "Dupont"]


def test_a_first_name_alone_counts_once_the_full_name_was_seen() -> None:
    assert values("Claire Lefèvre est là. Claire a tout relu.") == ["Claire Lefèvre", "Claire"]


def test_a_name_seen_after_an_honorific_is_known_afterwards() -> None:
    assert values("Mme Zorbec a appelé. Zorbec rappellera.") == ["Zorbec", "Zorbec"]


def test_names_seen_earlier_in_the_conversation_are_given_as_known() -> None:
    assert values("Dupont a rappelé.") == []
    assert values("Dupont a rappelé.", known=["Jean Dupont"]) == ["Dupont"]
    assert values("Karlo Vexmir a rappelé.", known=["Karlo Vexmir"]) == ["Karlo Vexmir"]
    assert values("Ondine viendra.", known=["Ondine"]) == ["Ondine"]


def test_echoes_are_lexicon_spans_with_a_lower_score() -> None:
    spans = detect_names("Jean Dupont est venu. Dupont est reparti.")
    assert spans[1].source == "lexicon"
    assert spans[1].score < spans[0].score


def test_a_known_name_that_is_a_function_word_only_echoes_mid_sentence() -> None:
    text = "Will you come? I asked Will."
    assert values(text, known=["Will Turner"]) == ["Will"]


def test_a_known_month_name_used_as_a_date_is_not_an_echo() -> None:
    text = "April Smith a appelé. Rendez-vous en April 2024 ? April est d'accord."
    assert values(text) == ["April Smith", "April"]


def test_particles_and_honorifics_of_known_names_never_echo() -> None:
    assert values("De rien, le projet de la mairie.", known=["Jean de La Fontaine", "M. Dupont"]) == []


# --- what is not a person --------------------------------------------------------------------------

NOT_NAMES = [
    "Rose est une couleur.",
    "Pierre et ciment sont livrés.",
    "Le marché est en pierre.",
    "Rendez-vous en avril 2024.",
    "Nous partons en mai.",
    "In May 2024 we shipped the first version.",
    "In April Smith was hired.",
    "Will Microsoft ship it?",
    "Je vis à Paris.",
    "Paris est magnifique.",
    "Saint-Étienne est une ville.",
    "London is expensive.",
    "Atelier Torbel SARL a livré.",
    "Jean Dupont SARL a livré.",
    "12 rue Victor Hugo, 75016 Paris",
    "Lycée Marie Curie",
    "Victoria Station is the meeting point.",
    "Merci Beaucoup pour tout.",
    "Bonjour à toutes et à tous.",
    "Facture N° 2024-001",
    "La Marine nationale recrute.",
    "RAPPORT ANNUEL DUPONT",
    "PDF Marie",
    "Rapport Annuel Jean Paul Marie Dupont Martin",
    "Le Pen est sur la table.",
]


@pytest.mark.parametrize("text", NOT_NAMES)
def test_ordinary_words_places_dates_and_companies_are_not_persons(text: str) -> None:
    assert values(text) == []


# --- invisible characters and odd spaces -----------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Jean\u00a0Dupont est venu.", "Jean\u00a0Dupont"),
        ("Jean\u202fDupont est venu.", "Jean\u202fDupont"),
        ("Jean Du\u200bpont est venu.", "Jean Du\u200bpont"),
        ("Jean Dupont\u200d est venu.", "Jean Dupont"),
        ("\ufeffJean Dupont est venu.", "Jean Dupont"),
        ("Jean Du\u00adpont est venu.", "Jean Du\u00adpont"),
        ("Jean\u200bDupont est venu.", "Jean\u200bDupont"),
        ("M.\u00a0Du\u2060pont est venu.", "Du\u2060pont"),
    ],
)
def test_invisible_characters_and_no_break_spaces_do_not_defeat_detection(text: str, expected: str) -> None:
    [span] = detect_names(text)
    assert span.value == expected
    assert text[span.start : span.end] == span.value


def test_accented_and_decomposed_names_are_found() -> None:
    decomposed = "Chez E\u0301lodie Me\u0301nard."
    [span] = detect_names("Élodie Ménard et Zoë Müller.")[:1]
    assert span.value == "Élodie Ménard"
    assert values("Zoë Müller et Ana Ñúñez.") == ["Zoë Müller", "Ana Ñúñez"]
    assert values(decomposed) == ["E\u0301lodie Me\u0301nard"]


# --- offsets, robustness, speed --------------------------------------------------------------------

NAME_ALPHABET = st.sampled_from(
    ["Jean", "Dupont", "M.", "Mme", "de", "la", "La", "DUPONT", "Marie", "Bonjour", ",", ".", "\n", " ", "\u200b",
     "\u00a0", "Cordialement", "je m'appelle", "Rose", "avril", "2024", "SARL", "Élodie", "d'", "Karl", "-"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(NAME_ALPHABET, max_size=40).map(" ".join), st.lists(st.sampled_from(["Jean Dupont", "Zorbec"])))
def test_every_span_reads_its_value_from_the_original_text(text: str, known: list[str]) -> None:
    spans = detect_names(text, known=known)
    for span in spans:
        assert text[span.start : span.end] == span.value
        assert span.kind == "person"
        assert span.source in ("lexicon", "context")
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))


HOSTILE_NAMES = {
    "first names": "Jean " * 4_000,
    "full names": "Jean Dupont " * 2_000,
    "honorifics": "M. Dupont " * 2_000,
    "capitals": "ABC " * 5_000,
    "elisions": "d'" * 10_000,
    "zero widths": "Jean\u200b" * 4_000,
    "one long word": "a" * 20_000,
    "closings": "Cordialement,\n" * 1_500,
    "unknown pairs": "Kelidu Tolbek " * 8_000,
    "person cues": "avec Zorvan Kelidu " * 5_000,
    "roles": "Zorvan Kelidu, directeur " * 4_000,
    "mail headers": ("cc: " + "Anna Berg, " * 2_000 + "\n") * 4,
    "e-mails": "Zorvan Kelidu (z.kelidu@x.fr) " * 3_000,
    "vocatives": "Lucas, the " * 9_000,
}


@pytest.mark.parametrize("hostile", list(HOSTILE_NAMES.values()), ids=list(HOSTILE_NAMES))
def test_hostile_input_is_scanned_with_linear_work(hostile: str) -> None:
    assert_linear(detect_names, hostile)


PROSE_FR = (
    'Bonjour Claire,\n'
    '\n'
    'Suite à notre réunion de mardi avec M. Dupont et Mme Lefèvre, je te fais un point sur le '
    'dossier de la société Atelier Torbel SARL. Le client souhaite avancer la livraison au mois '
    "d'avril, ce qui paraît ambitieux vu le planning actuel. Jean-Pierre Martin, qui suit le "
    "projet depuis janvier, pense que c'est faisable si nous renforçons l'équipe avec deux "
    'développeurs. Rose est une couleur que le client adore, il faudra donc revoir la charte '
    'graphique avant la fin du mois.\n'
    '\n'
    'En avril, nous avons aussi rendez-vous à Lyon avec Maître Garnier pour finaliser le '
    "contrat. Il a demandé une copie du Kbis et de l'attestation d'assurance. Pierre Marchand, "
    "notre comptable, préparera les documents. La facture de mars n'a pas encore été réglée : "
    "Karl Studio SAS nous doit toujours 12 400 euros TTC. J'ai relancé leur service comptable "
    "par courriel la semaine dernière, sans réponse pour l'instant.\n"
    '\n'
    'Le prestataire chez qui nous hébergeons les serveurs, OVH, a annoncé une maintenance le 14 '
    'mai. Marie Dubois propose de migrer une partie des données vers Google Drive en attendant. '
    'Je ne suis pas sûr que ce soit une bonne idée pour les données personnelles des clients ; '
    'la CNIL est assez claire sur le sujet. Paris reste la meilleure option pour le prochain '
    'séminaire, mais Saint-Étienne est moins chère. Nous en parlerons avec la direction jeudi.\n'
    '\n'
    "Pour la partie technique, Thomas Bernard a terminé le module d'authentification. Les tests "
    'passent, mais il reste deux bugs sur Android. Il propose de les corriger avant la mise en '
    "production. Sophie Laurent, de son côté, travaille sur l'export PDF des factures et des "
    "devis. Elle a besoin de l'accès au serveur de pré-production ; peux-tu demander à Nicolas "
    "Petit de lui ouvrir un compte ? Dupont m'a dit qu'il validerait le budget dès réception du "
    'devis signé.\n'
    '\n'
    "Enfin, n'oublie pas que Mme Lefèvre part en congé à partir du 20 avril. C'est Julien "
    'Moreau qui reprendra ses dossiers pendant trois semaines. Si tu as des questions sur le '
    'contrat avec Karl Studio, adresse-toi directement à lui. Le rapport annuel doit être '
    "envoyé à l'URSSAF et aux impôts avant la fin du trimestre, et la Mairie de Lyon attend "
    'toujours notre dossier de subvention.\n'
    '\n'
    'Cordialement,\n'
    'Antoine\n'
)


def test_ten_kilobytes_of_french_prose_cost_about_ten_times_one_kilobyte() -> None:
    """The work grows with the text, not with its square (bench/linear.py times the 10 kB, a few ms)."""
    text = ten_kilobytes_of_prose()
    assert_linear(detect_names, text, text[:1_024])


def ten_kilobytes_of_prose() -> str:
    return ((PROSE_FR + "\n") * 5)[:10_240]


def test_the_french_prose_sample_yields_its_people_and_nothing_else() -> None:
    assert values(PROSE_FR) == [
        "Claire", "Dupont", "Lefèvre", "Jean-Pierre Martin", "Garnier", "Pierre Marchand", "Marie Dubois",
        "Thomas Bernard", "Sophie Laurent", "Nicolas Petit", "Dupont", "Lefèvre", "Julien Moreau", "Antoine",
    ]


# --- user names ------------------------------------------------------------------------------------


def handles(text: str) -> list[str]:
    return [span.value for span in detect_handles(text)]


HANDLES = [
    ('"@zora.kel can you merge your PR?"', ["zora.kel"]),
    ("Ping @kelidu_z and @ana-m on Slack.", ["kelidu_z", "ana-m"]),
    ("Send the intern their credentials: login z.kelidu, password to change.", ["z.kelidu"]),
    ("Identifiant : zkelidu42", ["zkelidu42"]),
    ("Username: jsmith", ["jsmith"]),
    ("My username on the forum is grey_owl_77 and someone copies it.", ["grey_owl_77"]),
    ("Le pseudo de ma fille sur Discord c'est luna_k9 depuis hier.", ["luna_k9"]),
    ("Mon identifiant sur le portail est zk.compta mais il a expiré.", ["zk.compta"]),
    ("Mein Benutzername im Portal ist zkelidu84, aber es geht nicht.", ["zkelidu84"]),
    ("Il mio nome utente sul gestionale è z_kelidu ma non funziona.", ["z_kelidu"]),
    ("Login fehlgeschlagen für den Benutzer z.kelidu.", ["z.kelidu"]),
    ("El log muestra un acceso con el usuario jgarcia.", ["jgarcia"]),
    # keys and phrases of code and logs
    ("sshd[2211]: Failed password for invalid user nathalie from 185.220.101.43", ["nathalie"]),
    ('{"user": "lmarechal", "role": "admin"}', ["lmarechal"]),
    ('{"db_user": "admin_pr", "db_pass": "x"}', ["admin_pr"]),
    ("# author: wojtek.nowicki", ["wojtek.nowicki"]),
    ('  File "/home/abhishek.rao/projects/main.py", line 88', ["abhishek.rao"]),
    ("PS C:\\Users\\n.okonkwo> npm run build", ["n.okonkwo"]),
    ("08:14:02 ERROR auth failed for user=tvandamme from 10.0.0.7", ["tvandamme"]),
    ("il mio nick su reddit è u/bruschetta_lover", ["bruschetta_lover"]),
    ("sshd[22817]: Accepted publickey for mlefebvre from 10.0.3.12 port 40022", ["mlefebvre"]),
    ("Authentication for user [kschmidt] -> [kschmidt] FAILED", ["kschmidt"]),
    # the login of a remote shell or copy, or before an IP address (no e-mail address has an IP host)
    ("He's using `ssh dkumar@10.14.2.37` and gets 'Permission denied'", ["dkumar"]),
    ("scp backup.tar mlopez@build01.internal:/tmp", ["mlopez"]),
    ("Bei dennis.k@10.20.4.17 kommt nur ein Fehler", ["dennis.k"]),
    # an account named by its platform; a camel-case handle; "cest" typed without its apostrophe
    ("my steam is d4rkmatt3r_ add me", ["d4rkmatt3r"]),
    ("mein twitch name ist xXGamerLenaXx, meine mutter", ["xXGamerLenaXx"]),
    ("mon identifiant cest famille.ramdani et le mail", ["famille.ramdani"]),
]


@pytest.mark.parametrize("text, expected", HANDLES)
def test_mentions_and_labelled_user_names_are_usernames(text: str, expected: list[str]) -> None:
    assert handles(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Write to jean@exemple.fr or support@exemple.com.",
        "See @example.com for details.",
        "@media screen and (max-width: 600px) {}",
        "@app.route('/login')",
        "@everyone the meeting moved to 3pm.",
        "Login failed for user admin.",
        "Enter your username and password.",
        "The user is not logged in.",
        "The login page is broken.",
        "Mon identifiant est perdu.",
        "The author: Victor Hugo wrote it.",
        "the owner is not here",
        "cd /home/root/projects",
        "ssh root@10.0.0.1 -p 2222",
        "open /Users/Shared/notes.txt",
        "I bought it on steam is that ok",
    ],
)
def test_addresses_code_and_ordinary_words_are_not_usernames(text: str) -> None:
    assert handles(text) == []


def test_username_spans_read_their_value_from_the_original_text() -> None:
    text = "Ping\u00a0@zora.kel and login z\u200b.kelidu"
    spans = detect_handles(text)
    assert [s.kind for s in spans] == ["username", "username"]
    for span in spans:
        assert text[span.start : span.end] == span.value
    assert spans[0].source == "rule" and spans[1].source == "context"


HOSTILE_HANDLES = {
    "mentions": "@a.b " * 20_000,
    "labels": "login is " * 11_000,
    "colons": "username: " * 10_000,
    "ats": "@" * 100_000,
    "users": "user a_" * 14_000,
}


@pytest.mark.parametrize("hostile", list(HOSTILE_HANDLES.values()), ids=list(HOSTILE_HANDLES))
def test_user_names_are_scanned_with_linear_work(hostile: str) -> None:
    assert_linear(detect_handles, hostile)


def test_a_labelled_account_of_generic_words_is_masked() -> None:
    text = "DB_HOST=db\nDB_USER=shop_admin\n"
    assert "shop_admin" not in pseudonymise(text, Vault.new(bytes(32), mode="fake"), RedactOptions()).text
