/**
 * Notes and accords: real perfumery terms, shared by the generator and enrichment. The note→accord
 * table is what makes a record's accords follow from its notes, so enrichment can derive missing
 * accords with `deriveAccords` exactly as the generator does.
 */

/** Accord names, lower case as community sites write them. */
export const ACCORDS = [
  'woody',
  'citrus',
  'floral',
  'white floral',
  'yellow floral',
  'rose',
  'amber',
  'aromatic',
  'fresh spicy',
  'warm spicy',
  'soft spicy',
  'powdery',
  'leather',
  'musky',
  'sweet',
  'fruity',
  'green',
  'aquatic',
  'marine',
  'ozonic',
  'fresh',
  'earthy',
  'balsamic',
  'vanilla',
  'oud',
  'smoky',
  'animalic',
  'herbal',
  'lavender',
  'iris',
  'violet',
  'tuberose',
  'honey',
  'caramel',
  'cacao',
  'coffee',
  'nutty',
  'almond',
  'coconut',
  'tropical',
  'tobacco',
  'rum',
  'whiskey',
  'mossy',
  'cherry',
  'beeswax',
  'salty',
  'mineral',
  'metallic',
  'aldehydic',
  'anis',
  'camphor',
  'cinnamon',
  'conifer',
  'patchouli',
  'soapy',
  'lactonic',
  'wine',
  'tea',
  'bitter',
  'sour',
  'incense',
] as const;
export type Accord = (typeof ACCORDS)[number];

/** Layer(s) of the pyramid a note usually sits in: T top, H heart, B base. */
type Layers = 'T' | 'H' | 'B' | 'TH' | 'HB' | 'TB' | 'THB';

/** `note:layers:accord,accord` — accords strongest first. */
const NOTE_TABLE = `
bergamot:T:citrus,fresh
calabrian bergamot:T:citrus,fresh,aromatic
lemon:T:citrus,fresh
lime:T:citrus,fresh,green
mandarin orange:T:citrus,sweet
green mandarin:T:citrus,green
orange:T:citrus,sweet
blood orange:T:citrus,fruity
bitter orange:T:citrus,bitter
grapefruit:T:citrus,fresh,bitter
pink grapefruit:T:citrus,fruity
yuzu:T:citrus,fresh
citron:T:citrus,fresh
kumquat:T:citrus,fruity
clementine:T:citrus,sweet
tangerine:T:citrus,sweet
petitgrain:T:citrus,green,woody
lemon verbena:T:citrus,herbal
lemongrass:T:citrus,herbal,green
litsea cubeba:T:citrus,fresh spicy
sudachi:T:citrus,sour
kaffir lime:T:citrus,green,aromatic
finger lime:T:citrus,sour,fresh
lemon myrtle:T:citrus,herbal
chinotto:T:citrus,bitter
pomelo:T:citrus,fresh
bigarade:T:citrus,bitter
neroli:TH:white floral,citrus
orange blossom:H:white floral,sweet
lavender:TH:lavender,aromatic,fresh
lavandin:TH:lavender,aromatic,camphor
rosemary:T:aromatic,herbal,camphor
basil:T:aromatic,herbal,green
mint:T:fresh,aromatic
peppermint:T:fresh,camphor
spearmint:T:fresh,green
sage:TH:aromatic,herbal
clary sage:TH:aromatic,herbal,musky
thyme:T:aromatic,herbal,warm spicy
tarragon:T:aromatic,anis,green
artemisia:TH:aromatic,green,bitter
wormwood:TH:aromatic,bitter,green
fennel:T:anis,aromatic
star anise:TH:anis,warm spicy
dill:T:herbal,green
coriander:T:fresh spicy,aromatic
cardamom:TH:fresh spicy,aromatic
pink pepper:T:fresh spicy,fruity
black pepper:T:fresh spicy,woody
sichuan pepper:T:fresh spicy,citrus
tasmanian pepperberry:T:fresh spicy,fruity
juniper berries:T:conifer,aromatic,fresh spicy
ginger:T:fresh spicy,citrus
galbanum:TH:green,earthy
eucalyptus:T:camphor,aromatic,fresh
bay leaf:T:aromatic,fresh spicy
myrtle:T:aromatic,green
elemi:TH:fresh spicy,balsamic,citrus
angelica:TH:aromatic,earthy,musky
caraway:T:fresh spicy,anis
shiso:T:green,herbal
cinnamon:HB:cinnamon,warm spicy,sweet
clove:H:warm spicy,soft spicy
nutmeg:H:warm spicy,soft spicy
saffron:TH:warm spicy,leather
cumin:H:warm spicy,animalic
allspice:H:warm spicy
pimento:H:warm spicy
mace:H:warm spicy,soft spicy
turmeric:H:warm spicy,earthy
cacao pod:HB:cacao,sweet
licorice:HB:anis,sweet
rose:H:rose,floral
damask rose:H:rose,floral,fruity
bulgarian rose:H:rose,floral
turkish rose:H:rose,floral,warm spicy
may rose:H:rose,floral,fresh
taif rose:H:rose,warm spicy
rose absolute:H:rose,floral,honey
tea rose:H:rose,tea
centifolia rose:H:rose,floral,powdery
jasmine:H:white floral,floral
jasmine sambac:H:white floral,floral,animalic
tuberose:H:tuberose,white floral
gardenia:H:white floral,floral
ylang-ylang:H:floral,white floral,sweet
magnolia:H:floral,citrus,white floral
lily of the valley:H:floral,green,fresh
lily:H:white floral,floral
peony:H:floral,fresh,rose
freesia:H:floral,fresh
violet:H:violet,powdery,floral
violet leaf:TH:green,violet
iris:H:iris,powdery
orris root:HB:iris,powdery,earthy
heliotrope:HB:powdery,almond,sweet
mimosa:H:yellow floral,powdery
cassie:H:yellow floral,powdery,animalic
osmanthus:H:yellow floral,fruity,leather
honeysuckle:H:floral,sweet,fresh
lilac:H:floral,powdery
hyacinth:H:floral,green
narcissus:H:yellow floral,animalic,green
carnation:H:floral,warm spicy
frangipani:H:white floral,tropical
tiare flower:H:white floral,tropical,coconut
champaca:H:white floral,yellow floral
lotus:H:floral,aquatic
water lily:H:floral,aquatic,fresh
cyclamen:H:floral,fresh,aquatic
orchid:H:floral,sweet
vanilla orchid:H:floral,vanilla
geranium:H:floral,rose,green
marigold:H:yellow floral,green,fruity
chamomile:H:herbal,yellow floral,honey
linden blossom:H:floral,honey,green
cherry blossom:H:floral,fruity,powdery
plum blossom:H:floral,fruity
apple blossom:H:floral,fresh,fruity
wisteria:H:floral,sweet
sweet pea:H:floral,fresh,fruity
camellia:H:floral,green
acacia:H:yellow floral,honey
broom:H:yellow floral,honey
immortelle:HB:honey,herbal,yellow floral
boronia:H:floral,fruity,violet
wattle flower:H:yellow floral,powdery,honey
gardenia leaf:H:green,white floral
rose petals:H:rose,fresh
mimosa absolute:H:yellow floral,honey,powdery
apple:T:fruity,fresh
green apple:T:fruity,green,sour
pear:T:fruity,fresh
peach:TH:fruity,lactonic,sweet
apricot:TH:fruity,sweet
plum:HB:fruity,sweet
black currant:T:fruity,green,sour
raspberry:TH:fruity,sweet
strawberry:TH:fruity,sweet
blackberry:TH:fruity,sweet
blueberry:T:fruity,sweet
cherry:TH:cherry,fruity,sweet
fig:HB:green,lactonic,fruity
fig leaf:TH:green,woody
pineapple:T:tropical,fruity,sweet
mango:T:tropical,fruity
passionfruit:T:tropical,fruity,sour
lychee:T:fruity,floral
melon:T:fruity,aquatic,fresh
watermelon:T:fruity,aquatic
pomegranate:T:fruity,sour
quince:T:fruity,sour
red berries:T:fruity,sweet
cranberry:T:fruity,sour
guava:T:tropical,fruity
papaya:T:tropical,fruity
banana:T:tropical,fruity,sweet
date:HB:sweet,fruity,caramel
rhubarb:T:green,sour,fruity
grape:T:fruity,wine
davana:TH:fruity,whiskey,herbal
kakadu plum:T:fruity,sour
coconut:HB:coconut,tropical,sweet
coconut milk:HB:coconut,lactonic
vanilla:B:vanilla,sweet
bourbon vanilla:B:vanilla,sweet,balsamic
madagascar vanilla:B:vanilla,sweet
tonka bean:B:sweet,powdery,vanilla
caramel:B:caramel,sweet
praline:B:nutty,caramel,sweet
chocolate:B:cacao,sweet
dark chocolate:B:cacao,bitter
cacao:B:cacao,sweet
coffee:HB:coffee,bitter
espresso:HB:coffee,bitter,smoky
honey:HB:honey,sweet,animalic
almond:HB:almond,nutty,sweet
bitter almond:HB:almond,bitter
hazelnut:HB:nutty,sweet
pistachio:HB:nutty,sweet,green
chestnut:HB:nutty,sweet
milk:HB:lactonic,sweet
cream:HB:lactonic,sweet
sugar:B:sweet
brown sugar:B:sweet,caramel
cotton candy:B:sweet,fruity
marshmallow:B:sweet,powdery
toffee:B:caramel,sweet
maple syrup:B:sweet,caramel
meringue:B:sweet,almond
rum:HB:rum,sweet
cognac:HB:whiskey,fruity
whiskey:HB:whiskey,woody
champagne:T:wine,fresh
red wine:H:wine,fruity
sake:T:wine,fresh
black tea:H:tea,smoky,bitter
green tea:TH:tea,green,fresh
matcha:H:tea,green
mate:H:tea,green,herbal
earl grey tea:TH:tea,citrus
oolong tea:H:tea,floral
lapsang souchong:H:tea,smoky
rooibos:H:tea,sweet,woody
sandalwood:B:woody,lactonic
australian sandalwood:B:woody,balsamic
mysore sandalwood:B:woody,lactonic,sweet
cedar:B:woody
cedarwood:B:woody
virginia cedar:B:woody,smoky
atlas cedar:B:woody,balsamic
vetiver:B:woody,earthy,smoky
haitian vetiver:B:woody,earthy,green
patchouli:B:patchouli,earthy,woody
guaiac wood:B:woody,smoky,balsamic
oud:B:oud,woody,animalic
agarwood:B:oud,woody,smoky
cambodian oud:B:oud,animalic,leather
cashmeran:B:woody,musky
iso e super:B:woody,amber
ambroxan:B:amber,woody,musky
cypress:TH:conifer,woody,green
pine:T:conifer,fresh,green
fir balsam:B:conifer,balsamic
birch:B:leather,smoky,woody
birch tar:B:smoky,leather
oakmoss:B:mossy,earthy,green
treemoss:B:mossy,woody
cypriol:B:woody,earthy,smoky
papyrus:B:woody,smoky,green
rosewood:H:woody,floral
teak:B:woody
ebony:B:woody,smoky
mahogany:B:woody,sweet
driftwood:B:woody,marine
cedar leaf:T:conifer,camphor
hinoki:B:woody,conifer
palo santo:B:woody,incense,citrus
akigalawood:B:woody,fresh spicy,patchouli
javanol:B:woody,lactonic
cedar needles:T:conifer,fresh
amber:B:amber,sweet,balsamic
labdanum:B:amber,balsamic,animalic
benzoin:B:balsamic,vanilla,sweet
myrrh:B:balsamic,incense,warm spicy
frankincense:HB:incense,balsamic,citrus
olibanum:HB:incense,balsamic
incense:B:incense,smoky
opoponax:B:balsamic,amber,sweet
styrax:B:balsamic,leather,smoky
tolu balsam:B:balsamic,vanilla
peru balsam:B:balsamic,vanilla,cinnamon
copaiba:B:balsamic,woody
ambergris:B:amber,salty,animalic
ambrette seed:HB:musky,fruity,powdery
musk:B:musky,powdery
white musk:B:musky,soapy,powdery
skin musk:B:musky,animalic
castoreum:B:animalic,leather
civet:B:animalic,floral
hyraceum:B:animalic,leather
leather:B:leather,animalic
suede:B:leather,powdery
russian leather:B:leather,smoky,animalic
tobacco:B:tobacco,sweet,woody
tobacco leaf:HB:tobacco,green,sweet
pipe tobacco:B:tobacco,smoky,sweet
hay:HB:green,sweet,herbal
beeswax:B:beeswax,honey,animalic
orris butter:HB:iris,powdery,woody
sea notes:T:marine,aquatic,fresh
sea salt:TB:salty,marine,mineral
calone:T:aquatic,marine,ozonic
ozonic notes:T:ozonic,fresh,aquatic
water notes:T:aquatic,fresh
rain:T:aquatic,ozonic,fresh
petrichor:HB:earthy,mineral,aquatic
wet stones:HB:mineral,aquatic
seaweed:H:marine,salty,green
sea spray:T:marine,salty,ozonic
flint:H:mineral,metallic
metallic notes:H:metallic,mineral
aldehydes:T:aldehydic,soapy,fresh
snow:T:fresh,ozonic,mineral
air notes:T:ozonic,fresh
smoke:B:smoky
cade oil:B:smoky,leather
gunpowder:HB:smoky,metallic
burnt wood:B:smoky,woody
grass:T:green,fresh
cut grass:T:green,fresh
tomato leaf:T:green,earthy
bamboo:TH:green,fresh,woody
ivy:H:green,earthy
blackcurrant bud:T:green,fruity,sour
mastic:TH:balsamic,green,fresh spicy
clover:H:green,sweet
moss:B:mossy,earthy,green
soil tincture:B:earthy,mineral
mushroom:B:earthy
truffle:B:earthy,animalic
carrot seed:H:earthy,iris
beetroot:H:earthy,sweet
lentisk:TH:green,balsamic
rice:HB:powdery,lactonic
oat:HB:lactonic,nutty
sesame:B:nutty,smoky
popcorn:B:caramel,nutty
bread:HB:sweet,lactonic
soap:H:soapy,fresh
powder notes:HB:powdery,musky
lipstick:H:powdery,iris,rose
talc:HB:powdery,soapy
salt:TB:salty,mineral
vinyl:B:leather,metallic
ink:H:metallic,mineral,smoky
paper:H:woody,powdery
pencil shavings:H:woody,conifer
cotton flower:H:soapy,fresh,musky
linen:H:soapy,fresh
`;

const LAYER_CODES = new Set(['T', 'H', 'B', 'TH', 'HB', 'THB', 'TB']);

export interface NoteInfo {
  name: string;
  /** Layers of the pyramid the note usually sits in. */
  layers: readonly ('top' | 'heart' | 'base')[];
  /** Accords the note contributes to, strongest first. */
  accords: readonly Accord[];
}

function parseNotes(table: string): NoteInfo[] {
  const accordSet = new Set<string>(ACCORDS);
  const out: NoteInfo[] = [];
  for (const line of table.split('\n')) {
    if (!line.trim()) continue;
    const [name, layers, accords] = line.split(':');
    if (!name || !layers || !accords || !LAYER_CODES.has(layers)) throw new Error(`bad note line: ${line}`);
    const list = accords.split(',');
    for (const a of list) if (!accordSet.has(a)) throw new Error(`note ${name}: unknown accord ${a}`);
    out.push({
      name,
      layers: Array.from(layers as Layers).map((c) => (c === 'T' ? 'top' : c === 'H' ? 'heart' : 'base')),
      accords: list as Accord[],
    });
  }
  return out;
}

/** Every note the generator uses (~300), with its layers and accords. */
export const NOTE_INFO: readonly NoteInfo[] = parseNotes(NOTE_TABLE);

/** Note names, lower case. */
export const NOTES: readonly string[] = NOTE_INFO.map((n) => n.name);

/** note → accords it contributes to, strongest first. */
export const NOTE_ACCORDS: ReadonlyMap<string, readonly Accord[]> = new Map(NOTE_INFO.map((n) => [n.name, n.accords]));

const NOTE_ACCORD_INDEXES: ReadonlyMap<string, readonly number[]> = new Map(
  NOTE_INFO.map((n) => [n.name, n.accords.map((a) => ACCORDS.indexOf(a))]),
);

/** Weight of a note's 1st, 2nd and 3rd accord. */
const ACCORD_RANK_WEIGHT = [1, 0.6, 0.35];
/** Base notes last longest, so they shape the accord profile most. */
const LAYER_WEIGHT = { top: 0.8, heart: 1, base: 1.2 } as const;

/**
 * Accords of a note pyramid, strongest first. Deterministic (no randomness), so enrichment can
 * fill a record's missing accords exactly as the generator would. Unknown notes are ignored.
 */
export function deriveAccords(notes: { top: readonly string[]; heart: readonly string[]; base: readonly string[] }, max = 8): Accord[] {
  const score = new Float64Array(ACCORDS.length);
  for (const layer of ['top', 'heart', 'base'] as const) {
    const layerWeight = LAYER_WEIGHT[layer];
    for (const note of notes[layer]) {
      const accords = NOTE_ACCORD_INDEXES.get(note) ?? NOTE_ACCORD_INDEXES.get(note.toLowerCase());
      if (!accords) continue;
      for (let rank = 0; rank < accords.length; rank++) {
        const a = accords[rank]!;
        score[a] = (score[a] ?? 0) + (ACCORD_RANK_WEIGHT[rank] ?? 0.2) * layerWeight;
      }
    }
  }
  const ranked: number[] = [];
  for (let a = 0; a < score.length; a++) if ((score[a] ?? 0) > 0) ranked.push(a);
  // Strongest first; ties in ACCORDS order so the result never depends on the notes' order.
  ranked.sort((a, b) => (score[b] ?? 0) - (score[a] ?? 0) || a - b);
  const top = score[ranked[0] ?? 0] ?? 0;
  // Keep accords that carry at least a fifth of the leading accord's weight.
  return ranked
    .filter((a) => (score[a] ?? 0) >= top * 0.2)
    .slice(0, max)
    .map((a) => ACCORDS[a]!);
}
