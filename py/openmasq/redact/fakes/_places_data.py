"""Real, little-known towns with a postal code per country (hand-written: Faker has no real
French, Spanish, British or American towns), and the French département → région table."""

from __future__ import annotations

# "Name|postcode" entries separated by commas; sub-prefectures and market towns, never a
# region's capital city.
FR_TOWNS = """
Belley|01300, Oyonnax|01100, Gex|01170, Château-Thierry|02400, Hirson|02500, Vervins|02140, Montluçon|03100,
Moulins|03000, Digne-les-Bains|04000, Manosque|04100, Sisteron|04200, Briançon|05100, Embrun|05200,
Grasse|06130, Vence|06140, Annonay|07100, Privas|07000, Aubenas|07200, Sedan|08200, Rethel|08300,
Pamiers|09100, Foix|09000, Bar-sur-Aube|10200, Nogent-sur-Seine|10400, Limoux|11300, Castelnaudary|11400,
Millau|12100, Villefranche-de-Rouergue|12200, Salon-de-Provence|13300, Istres|13800, La Ciotat|13600,
Lisieux|14100, Bayeux|14400, Vire|14500, Falaise|14700, Aurillac|15000, Mauriac|15200, Saint-Flour|15100,
Cognac|16100, Confolens|16500, Saintes|17100, Rochefort|17300, Jonzac|17500, Vierzon|18100,
Saint-Amand-Montrond|18200, Ussel|19200, Tulle|19000, Beaune|21200, Montbard|21500, Lannion|22300,
Guingamp|22200, Dinan|22100, Guéret|23000, Aubusson|23200, Bergerac|24100, Sarlat-la-Canéda|24200,
Nontron|24300, Pontarlier|25300, Montbéliard|25200, Montélimar|26200, Nyons|26110, Die|26150,
Bernay|27300, Les Andelys|27700, Vernon|27200, Dreux|28100, Châteaudun|28200, Nogent-le-Rotrou|28400,
Morlaix|29600, Quimperlé|29300, Châteaulin|29150, Alès|30100, Le Vigan|30120, Uzès|30700, Muret|31600,
Saint-Gaudens|31800, Condom|32100, Mirande|32300, Libourne|33500, Langon|33210, Lesparre-Médoc|33340,
Béziers|34500, Lodève|34700, Sète|34200, Fougères|35300, Vitré|35500, Redon|35600, Issoudun|36100,
Le Blanc|36300, La Châtre|36400, Chinon|37500, Loches|37600, La Tour-du-Pin|38110, Vienne|38200,
Voiron|38500, Dole|39100, Saint-Claude|39200, Lons-le-Saunier|39000, Dax|40100, Mont-de-Marsan|40000,
Vendôme|41100, Romorantin-Lanthenay|41200, Roanne|42300, Montbrison|42600, Brioude|43100,
Yssingeaux|43200, Châteaubriant|44110, Ancenis|44150, Montargis|45200, Pithiviers|45300, Figeac|46100,
Gourdon|46300, Marmande|47200, Villeneuve-sur-Lot|47300, Nérac|47600, Florac|48400, Mende|48000,
Cholet|49300, Saumur|49400, Segré|49500, Avranches|50300, Coutances|50200, Granville|50400,
Épernay|51200, Vitry-le-François|51300, Langres|52200, Saint-Dizier|52100, Mayenne|53100,
Château-Gontier|53200, Lunéville|54300, Toul|54200, Verdun|55100, Commercy|55200, Pontivy|56300,
Ploërmel|56800, Auray|56400, Sarreguemines|57200, Forbach|57600, Thionville|57100,
Cosne-Cours-sur-Loire|58200, Clamecy|58500, Cambrai|59400, Avesnes-sur-Helpe|59440, Douai|59500,
Compiègne|60200, Clermont|60600, Senlis|60300, Argentan|61200, Mortagne-au-Perche|61400, Béthune|62400,
Saint-Omer|62500, Issoire|63500, Thiers|63300, Riom|63200, Ambert|63600, Oloron-Sainte-Marie|64400,
Orthez|64300, Bagnères-de-Bigorre|65200, Argelès-Gazost|65400, Céret|66400, Prades|66500,
Haguenau|67500, Molsheim|67120, Saverne|67700, Sélestat|67600, Altkirch|68130, Guebwiller|68500,
Thann|68800, Villefranche-sur-Saône|69400, Tarare|69170, Lure|70200, Vesoul|70000, Autun|71400,
Charolles|71120, Louhans|71500, La Flèche|72200, Mamers|72600, Albertville|73200,
Saint-Jean-de-Maurienne|73300, Bonneville|74130, Thonon-les-Bains|74200, Dieppe|76200, Fécamp|76400,
Yvetot|76190, Provins|77160, Meaux|77100, Rambouillet|78120, Mantes-la-Jolie|78200, Bressuire|79300,
Parthenay|79200, Abbeville|80100, Péronne|80200, Montdidier|80500, Castres|81100, Gaillac|81600,
Castelsarrasin|82100, Moissac|82200, Brignoles|83170, Draguignan|83300, Apt|84400, Carpentras|84200,
Cavaillon|84300, Fontenay-le-Comte|85200, Châtellerault|86100, Loudun|86200, Montmorillon|86500,
Bellac|87300, Rochechouart|87600, Saint-Junien|87200, Saint-Dié-des-Vosges|88100, Neufchâteau|88300,
Remiremont|88200, Avallon|89200, Sens|89100, Delle|90100, Étampes|91150, Palaiseau|91120, Antony|92160,
Clamart|92140, Bobigny|93000, Le Raincy|93340, Nogent-sur-Marne|94130, Pontoise|95000, Sarcelles|95200,
Sartène|20100, Corte|20250, Calvi|20260, Le Lamentin|97232, Saint-Benoît|97470, Basse-Terre|97100
"""

# Current régions by département code (postal codes give the département in their first two
# digits, 20xxx is Corsica, 97x the overseas départements).
FR_REGION_OF_DEPARTMENT: dict[str, str] = {
    **dict.fromkeys(["01", "03", "07", "15", "26", "38", "42", "43", "63", "69", "73", "74"], "ARA"),
    **dict.fromkeys(["21", "25", "39", "58", "70", "71", "89", "90"], "BFC"),
    **dict.fromkeys(["22", "29", "35", "56"], "BRE"),
    **dict.fromkeys(["18", "28", "36", "37", "41", "45"], "CVL"),
    **dict.fromkeys(["20", "2A", "2B"], "COR"),
    **dict.fromkeys(["08", "10", "51", "52", "54", "55", "57", "67", "68", "88"], "GES"),
    **dict.fromkeys(["02", "59", "60", "62", "80"], "HDF"),
    **dict.fromkeys(["75", "77", "78", "91", "92", "93", "94", "95"], "IDF"),
    **dict.fromkeys(["14", "27", "50", "61", "76"], "NOR"),
    **dict.fromkeys(["16", "17", "19", "23", "24", "33", "40", "47", "64", "79", "86", "87"], "NAQ"),
    **dict.fromkeys(["09", "11", "12", "30", "31", "32", "34", "46", "48", "65", "66", "81", "82"], "OCC"),
    **dict.fromkeys(["44", "49", "53", "72", "85"], "PDL"),
    **dict.fromkeys(["04", "05", "06", "13", "83", "84"], "PAC"),
    **dict.fromkeys(["971", "972", "973", "974", "976"], "DOM"),
}

DE_TOWNS = """
Tübingen|72070, Bamberg|96047, Lüneburg|21335, Celle|29221, Goslar|38640, Marburg|35037, Gießen|35390,
Fulda|36037, Hameln|31785, Wetzlar|35578, Landshut|84028, Passau|94032, Rosenheim|83022, Kempten|87435,
Ravensburg|88212, Konstanz|78462, Offenburg|77652, Pforzheim|75175, Heilbronn|74072,
Schwäbisch Hall|74523, Aalen|73430, Erlangen|91052, Bayreuth|95444, Coburg|96450, Schweinfurt|97421,
Aschaffenburg|63739, Worms|67547, Speyer|67346, Trier|54290, Siegen|57072, Paderborn|33098,
Detmold|32756, Minden|32423, Gütersloh|33330, Soest|59494, Iserlohn|58636, Emden|26721, Aurich|26603,
Leer|26789, Cuxhaven|27472, Stade|21682, Husum|25813, Flensburg|24937, Neumünster|24534, Wismar|23966,
Stralsund|18439, Greifswald|17489, Eberswalde|16225, Görlitz|02826, Bautzen|02625, Zwickau|08056,
Plauen|08523, Gera|07545, Jena|07743, Eisenach|99817, Gotha|99867, Nordhausen|99734,
Halberstadt|38820, Wernigerode|38855, Amberg|92224, Straubing|94315, Memmingen|87700, Ansbach|91522
"""

ES_TOWNS = """
Getafe|28901, Talavera de la Reina|45600, Ponferrada|24400, Lorca|30800, Linares|23700, Úbeda|23400,
Antequera|29200, Écija|41400, Utrera|41710, Mérida|06800, Plasencia|10600, Reus|43201, Manresa|08240,
Vic|08500, Figueres|17600, Olot|17800, Gandia|46700, Alcoy|03801, Elda|03600, Orihuela|03300,
Requena|46340, Calatayud|50300, Tudela|31500, Aranda de Duero|09400, Miranda de Ebro|09200,
Ferrol|15401, Lugo|27001, Ourense|32001, Avilés|33401, Mieres|33600, Torrelavega|39300, Eibar|20600,
Durango|48200, Palencia|34001, Zamora|49001, Soria|42001, Cuenca|16001, Teruel|44001, Huesca|22001,
Motril|18600, Puertollano|13500, Villarrobledo|02600, Don Benito|06400, Lucena|14900
"""

# Post town and its postcode district; the inward code ("1AB") is drawn.
GB_TOWNS = """
Kendal|LA9, Stroud|GL5, Ludlow|SY8, Hexham|NE46, Whitby|YO21, Skipton|BD23, Harrogate|HG1, Taunton|TA1,
Yeovil|BA20, Salisbury|SP1, Andover|SP10, Basingstoke|RG21, Guildford|GU1, Tonbridge|TN9,
Maidstone|ME14, Ashford|TN23, Colchester|CO1, Chelmsford|CM1, Bedford|MK40, Banbury|OX16,
Shrewsbury|SY1, Hereford|HR1, Worcester|WR1, Kidderminster|DY10, Lichfield|WS13, Stafford|ST16,
Macclesfield|SK10, Chester|CH1, Lancaster|LA1, Carlisle|CA1, Darlington|DL1, Morpeth|NE61,
Grantham|NG31, Boston|PE21, King's Lynn|PE30, Bury St Edmunds|IP33, Truro|TR1, Barnstaple|EX31,
Dorchester|DT1, Perth|PH1, Stirling|FK8, Dumfries|DG1, Wrexham|LL11, Aberystwyth|SY23,
Carmarthen|SA31, Newry|BT34, Penrith|CA11, Bridport|DT6
"""

# City, state and a ZIP code of that city.
US_TOWNS = """
Bozeman|MT|59715, Ithaca|NY|14850, Missoula|MT|59801, Asheville|NC|28801, Flagstaff|AZ|86001,
Eugene|OR|97401, Bend|OR|97701, Duluth|MN|55802, Fargo|ND|58102, Dubuque|IA|52001, Peoria|IL|61602,
Champaign|IL|61820, Bloomington|IN|47401, Lafayette|IN|47901, Kalamazoo|MI|49007, Akron|OH|44308,
Dayton|OH|45402, Lexington|KY|40507, Knoxville|TN|37902, Chattanooga|TN|37402, Macon|GA|31201,
Gainesville|FL|32601, Pensacola|FL|32502, Shreveport|LA|71101, Lubbock|TX|79401, Amarillo|TX|79101,
Waco|TX|76701, Tyler|TX|75701, Provo|UT|84601, Spokane|WA|99201, Olympia|WA|98501, Eureka|CA|95501,
Chico|CA|95928, Salinas|CA|93901, Reno|NV|89501, Cheyenne|WY|82001, Rapid City|SD|57701,
Topeka|KS|66603, Wichita|KS|67202, Springfield|MO|65806, Erie|PA|16501, Scranton|PA|18503,
Lancaster|PA|17602, Concord|NH|03301, Burlington|VT|05401, Bangor|ME|04401, Roanoke|VA|24011
"""

BE_TOWNS = """
Namur|5000, Mons|7000, Tournai|7500, Arlon|6700, Dinant|5500, Wavre|1300, Nivelles|1400, Huy|4500,
Verviers|4800, Bastogne|6600, Ottignies|1340, Malmedy|4960, Hasselt|3500, Mechelen|2800, Aalst|9300,
Kortrijk|8500, Roeselare|8800, Turnhout|2300, Lier|2500, Genk|3600, Ieper|8900, Sint-Niklaas|9100
"""

CH_TOWNS = """
Yverdon-les-Bains|1400, Nyon|1260, Morges|1110, Vevey|1800, Montreux|1820, Sion|1950, Martigny|1920,
Delémont|2800, Neuchâtel|2000, Fribourg|1700, Bulle|1630, Aarau|5000, Thun|3600, Biel|2500,
Winterthur|8400, Chur|7000, Frauenfeld|8500, Zug|6300, Solothurn|4500, Schaffhausen|8200
"""

# Cities too well known to pass as an anonymous substitute (also used to recognise a country).
FAMOUS_CITIES: dict[str, tuple[str, ...]] = {
    "FR": ("Paris", "Marseille", "Lyon", "Toulouse", "Nice", "Nantes", "Strasbourg", "Montpellier",
           "Bordeaux",
           "Lille", "Rennes", "Reims", "Le Havre", "Saint-Étienne", "Toulon", "Grenoble", "Dijon", "Angers",
           "Nîmes", "Villeurbanne", "Clermont-Ferrand", "Le Mans", "Aix-en-Provence", "Brest", "Tours",
           "Amiens", "Limoges", "Annecy", "Perpignan", "Metz", "Besançon", "Orléans", "Rouen", "Mulhouse",
           "Caen", "Nancy", "Avignon", "Cannes", "Poitiers", "La Rochelle", "Pau", "Calais", "Ajaccio",
           "Bastia", "Versailles", "Boulogne-Billancourt", "Saint-Denis", "Montreuil", "Argenteuil",
           "Quimper", "Vannes", "Valence", "Chambéry", "Lorient", "Saint-Malo", "Biarritz", "Lourdes",
           "Troyes", "Bourges", "Chartres", "Blois", "Niort", "Angoulême", "Périgueux", "Agen", "Albi",
           "Tarbes", "Bayonne", "Colmar", "Auxerre", "Chalon-sur-Saône", "Mâcon", "Nevers", "Évreux",
           "Cherbourg", "Laval", "Saint-Brieuc", "Belfort", "Charleville-Mézières", "Châlons-en-Champagne",
           "Saint-Nazaire", "Arles", "Fréjus", "Menton", "Antibes", "Carcassonne", "Narbonne", "Rodez",
           "Cahors", "Montauban", "Auch", "Gap", "Chaumont", "Épinal", "Bar-le-Duc", "Alençon", "Cergy",
           "Créteil", "Nanterre", "Évry", "Melun", "Fontainebleau", "Vichy", "Saint-Quentin", "Laon",
           "Beauvais", "Arras", "Dunkerque", "Roubaix", "Tourcoing", "Valenciennes", "Lens"),
    "DE": ("Berlin", "Hamburg", "München", "Köln", "Frankfurt", "Frankfurt am Main", "Stuttgart",
           "Düsseldorf",
           "Dortmund", "Essen", "Leipzig", "Bremen", "Dresden", "Hannover", "Nürnberg", "Duisburg", "Bochum",
           "Wuppertal", "Bielefeld", "Bonn", "Münster", "Karlsruhe", "Mannheim", "Augsburg", "Wiesbaden",
           "Mainz", "Kiel", "Lübeck", "Rostock", "Magdeburg", "Erfurt", "Potsdam", "Freiburg", "Heidelberg",
           "Aachen", "Regensburg", "Würzburg", "Ulm", "Ingolstadt", "Kassel", "Braunschweig", "Chemnitz",
           "Halle", "Oldenburg", "Osnabrück", "Saarbrücken", "Koblenz", "Weimar", "Schwerin", "Cottbus"),
    "ES": ("Madrid", "Barcelona", "Valencia", "Sevilla", "Zaragoza", "Málaga", "Murcia", "Palma", "Bilbao",
           "Alicante", "Córdoba", "Valladolid", "Vigo", "Gijón", "Granada", "Oviedo", "Pamplona",
           "San Sebastián", "Santander", "Toledo", "Salamanca", "Cádiz", "Ibiza", "Marbella",
           "Santiago de Compostela", "A Coruña", "Burgos", "León", "Logroño", "Segovia", "Tarragona",
           "Girona"),
    "IT": ("Roma", "Milano", "Napoli", "Torino", "Palermo", "Genova", "Bologna", "Firenze", "Venezia",
           "Verona",
           "Bari", "Catania", "Messina", "Trieste", "Padova", "Pisa", "Siena", "Parma", "Modena", "Brescia",
           "Bergamo", "Cagliari", "Perugia", "Como", "Lucca", "Rimini", "Ravenna", "Trento", "Bolzano"),
    "GB": ("London", "Birmingham", "Manchester", "Liverpool", "Leeds", "Glasgow", "Edinburgh", "Bristol",
           "Sheffield", "Cardiff", "Belfast", "Newcastle", "Nottingham", "Leicester", "Oxford", "Cambridge",
           "Brighton", "Southampton", "Portsmouth", "York", "Bath", "Aberdeen", "Dundee", "Swansea",
           "Coventry", "Reading", "Norwich", "Exeter", "Plymouth", "Inverness", "Durham", "Canterbury",
           "Lincoln", "Ipswich", "Derby", "Stoke-on-Trent", "Sunderland", "Wolverhampton"),
    "US": ("New York", "Los Angeles", "Chicago", "Houston", "Phoenix", "Philadelphia", "San Antonio",
           "San Diego", "Dallas", "San Jose", "Austin", "San Francisco", "Seattle", "Denver", "Boston",
           "Washington", "Las Vegas", "Miami", "Atlanta", "Detroit", "Portland", "Nashville", "New Orleans",
           "Baltimore", "Minneapolis", "Pittsburgh", "Cleveland", "Orlando", "Honolulu", "Anchorage",
           "Salt Lake City", "Sacramento", "St. Louis", "Kansas City", "Indianapolis", "Columbus",
           "Charlotte", "Memphis", "Milwaukee", "Albuquerque", "Tucson", "Boulder", "Ann Arbor",
           "Santa Fe", "Savannah", "Tallahassee", "Boise", "Burlington"),
    "NL": ("Amsterdam", "Rotterdam", "Den Haag", "'s-Gravenhage", "Utrecht", "Eindhoven", "Groningen",
           "Tilburg", "Almere", "Breda", "Nijmegen", "Maastricht", "Haarlem", "Leiden", "Delft", "Arnhem",
           "'s-Hertogenbosch", "Zwolle", "Enschede", "Apeldoorn"),
    "BE": ("Bruxelles", "Brussel", "Brussels", "Anvers", "Antwerpen", "Gand", "Gent", "Bruges", "Brugge",
           "Liège", "Luik", "Charleroi", "Louvain", "Leuven", "Ostende", "Oostende", "Waterloo", "Spa"),
    "CH": ("Zürich", "Zurich", "Genève", "Geneva", "Genf", "Bâle", "Basel", "Berne", "Bern", "Lausanne",
           "Lugano", "Lucerne", "Luzern", "St. Gallen", "Davos", "Zermatt", "Saint-Moritz", "St. Moritz"),
    "PT": ("Lisboa", "Porto", "Braga", "Coimbra", "Faro", "Funchal", "Aveiro", "Sintra", "Cascais", "Évora"),
}


def parse_towns(block: str) -> tuple[tuple[str, ...], ...]:
    """"Name|code, Name|code" -> (("Name", "code"), ...); fields are separated by "|"."""
    entries = (entry.strip() for entry in block.replace("\n", " ").split(","))
    return tuple(tuple(field.strip() for field in entry.split("|")) for entry in entries if entry)
