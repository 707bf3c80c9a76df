/**
 * The closed word inventory of the searchqa corpus: name parts of the fictional people, towns, countries,
 * organisations, works and events (world.ts draws every name from combinations of these), occupations, work kinds
 * and the verbs and nouns the passages and questions use. Small on purpose: the policy is a word-level transformer
 * whose vocabulary is built from this env's text (vocab.ts), so every name is two words out of a few hundred rather
 * than a new word each. No name is a real person, place or work on purpose of the generator; any resemblance is a
 * coincidence of short syllables.
 */

/** Given names of people. */
export const FIRST_NAMES: readonly string[] = (
  'Orla Tavin Mira Corin Elsa Bram Ysolde Dario Nell Osric Petra Lucan Wren Ivo Sabine Teodor Alba Rurik Cosima ' +
  'Emrys Greta Hale Ines Joran Kaia Leif Maren Niko Odile Pell Rosalind Silas Thea Ulric Vesna Wystan Yara Zeno ' +
  'Anselm Brisa Cato Delphine Evander Fenna Gideon Hester Isolde Jasper'
).split(' ');

/** Family names of people. */
export const SURNAMES: readonly string[] = (
  'Brenn Morrow Vask Aldane Corvey Drummel Estwick Fennick Garrow Halloran Iverly Jestin Korval Lathrop Merrow ' +
  'Nettle Orrin Pellam Quarry Rusk Selwin Thorne Ulver Varga Wexley Yarrow Zell Ashdown Birchall Calloway Dunmore ' +
  'Everard Fairweather Greenhalgh Hollis Ingram Jarrow Kendal Lockhart Marchbank Norcott Ormsby Penhallow Quenby ' +
  'Radley Stannard Tregarth Underhill Voss Whitlock Ackroyd Bellamy Carrow Dacre Elwood Foxley Gilmour Harcourt ' +
  'Iddon Jerrold'
).split(' ');

/** First words of town names (`Kestrel Hollow`). */
export const TOWN_FIRST: readonly string[] = (
  'Kestrel Amber Raven Willow Stone Silver Iron Maple Thorn Ash Copper Frost Elder Heron Marsh Bramble Cinder Oak ' +
  'Juniper Falcon Hazel Linden Moss Pine Rowan Slate Tansy Wolf Alder Briar'
).split(' ');

/** Second words of town names. */
export const TOWN_SECOND: readonly string[] =
  'Hollow Ford Haven Bridge Crossing Reach Harbour Vale Mill Point Field Gate'.split(' ');

/** Country names (one word each). */
export const COUNTRIES: readonly string[] = (
  'Arvenia Belmora Dunmere Eldoria Fennmark Galvony Halvard Istrenne Jorvala Kelmora Lorvath Marrowen Norvale ' +
  'Orsenna Pellandy Quessary Rovenna Sarnoth Tavrelle Ulmark Valdris Westmere Ysterra Zandor Brevonia Corrand ' +
  'Dravenia Ebbaland Fyrland Gallowen'
).split(' ');

/** First words of organisation names (`Azure Guild`). */
export const ORG_FIRST: readonly string[] = (
  'Azure Crimson Golden Northern Southern Eastern Western Royal Free United Grand Ivory Scarlet Emerald Onyx Cobalt ' +
  'Sable Argent Verdant Lantern Compass Anchor Beacon Meridian Summit Keystone Lodestar Quill Vellum Ledger Prism ' +
  'Atlas Orbit Tidewater Bellwether Hearth Gable Spindle Thimble Harrow'
).split(' ');

/** Organisation kinds, the last word of an organisation's name. */
export const ORG_KINDS: readonly string[] =
  'Guild Society Company League Academy Press Bank Institute Union Trust Foundation Club'.split(' ');

/** First words of work titles (`The Silent Harbour`). */
export const WORK_FIRST: readonly string[] = (
  'Silent Broken Hidden Last Distant Burning Quiet Wandering Forgotten Crooked Pale Restless Sleeping Bitter ' +
  'Endless Gentle Lonely Shattered Winter Velvet Painted Secret Falling Midnight Rising Open Hollow Scarlet Iron ' +
  'Golden'
).split(' ');

/** Second words of work titles. */
export const WORK_SECOND: readonly string[] = (
  'Harbour Orchard Lantern Mirror River Garden Tower Voyage Letter Crown Bell Shore Window Meadow Kingdom Road ' +
  'Sparrow Lighthouse Tide Ember Clockmaker Promise Feather Island Storm Compass Echo Violin Candle Door'
).split(' ');

/** First words of event names (`Harvest Fair`). */
export const EVENT_FIRST: readonly string[] = (
  'Harvest Midsummer Spring Autumn Jubilee Founders Coronation Peace Unity Lantern Meridian Highland Lowland River ' +
  'Harbour Mountain Valley Coastal Northern Southern Golden Silver Iron Crystal Star Rose Thistle Beacon ' +
  'Equinox Solstice Tidewater Ember Willow Falcon Anchor Compass Orchard Meadow Copper'
).split(' ');

/** Event kinds, the last word of an event's name. */
export const EVENT_KINDS: readonly string[] = 'Fair Festival Congress Exhibition Regatta Games Summit Expedition'.split(
  ' ',
);

/** A kind of work, what its maker is called, the verb of its year, and the occupation of the people who make it. */
export interface WorkKind {
  /** As the passages write it (lower case): `novel`. */
  readonly kind: string;
  /** The maker in questions: `author`. */
  readonly maker: string;
  /** Past participle of the year: `published`. */
  readonly verb: string;
  /** The verb of `who … {work}` questions: `wrote`. */
  readonly made: string;
  /** The occupation of people who make this kind (one of OCCUPATIONS). */
  readonly occupation: string;
}

/** The six kinds of work; a person whose occupation is one of theirs makes works of that kind. */
export const WORK_KINDS: readonly WorkKind[] = [
  { kind: 'novel', maker: 'author', verb: 'published', made: 'wrote', occupation: 'novelist' },
  { kind: 'poem', maker: 'poet', verb: 'published', made: 'wrote', occupation: 'poet' },
  { kind: 'play', maker: 'playwright', verb: 'staged', made: 'wrote', occupation: 'playwright' },
  { kind: 'film', maker: 'director', verb: 'released', made: 'directed', occupation: 'director' },
  { kind: 'album', maker: 'singer', verb: 'released', made: 'recorded', occupation: 'singer' },
  { kind: 'opera', maker: 'composer', verb: 'staged', made: 'composed', occupation: 'composer' },
];

/** Occupations: the six makers' first, then people who make no work (they found organisations like anyone). */
export const OCCUPATIONS: readonly string[] = [
  ...WORK_KINDS.map((k) => k.occupation),
  ...'painter sculptor architect engineer physician merchant banker explorer botanist astronomer judge teacher'.split(
    ' ',
  ),
];
