import type { FragranceDetail, Gender } from '@fragrance/contracts';
import {
  accordSpelling,
  canonicalUrl,
  concentration,
  count,
  countryCode,
  gender,
  displayName,
  distinct,
  idOfUrl,
  list,
  noteSpelling,
  perfumers,
  rating,
  required,
  withoutVariantTail,
  year,
} from './normalise.ts';

export const IMPORT_FORMATS = ['fragrantica-csv', 'parfumo-csv', 'ndjson'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface CsvLayout {
  delimiter: string;
  /** Header columns, exactly as the public files name them. */
  columns: readonly string[];
  /** One data row (by header name) to a record; throws RejectedLine with the reason. */
  toRecord: (row: Record<string, string | undefined>, importedAt: string) => FragranceDetail;
}

interface Mapped {
  url: string;
  name: string;
  /** The name as the source lists it, when `name` was cut from it: a concentration can still be read from it. */
  listedName?: string;
  brand: string;
  country: string;
  concentration: string | undefined;
  /** Absent where the layout has no such column (Parfumo) or the row leaves it empty. */
  gender?: Gender | undefined;
  average: number | null;
  votes: number;
  year: number | null;
  top: string[];
  heart: string[];
  base: string[];
  perfumers: string[];
  accords: string[];
}

/** Builds our record from a mapped row: ids, vocabulary spellings, provenance. */
function record(m: Mapped, layout: ImportFormat, importedAt: string): FragranceDetail {
  const accords = distinct(m.accords.map(accordSpelling));
  const notes = {
    top: distinct(m.top.map(noteSpelling)),
    heart: distinct(m.heart.map(noteSpelling)),
    base: distinct(m.base.map(noteSpelling)),
  };
  const supplied = [
    'id',
    'name',
    'brand',
    'country',
    'concentration',
    'year_released',
    'rating',
    'main_accords',
    'notes',
    'accords',
    'perfumers',
    ...(m.gender ? ['gender'] : []),
  ];
  return {
    id: idOfUrl(m.url),
    name: m.name,
    brand: m.brand,
    country: m.country,
    concentration: concentration(m.concentration, m.listedName ?? m.name),
    ...(m.gender ? { gender: m.gender } : {}),
    year_released: m.year,
    rating: { average: m.votes === 0 ? null : m.average, count: m.average === null ? 0 : m.votes },
    main_accords: accords.slice(0, 5),
    available_in_au: false,
    description: null,
    notes,
    accords,
    perfumers: m.perfumers,
    seasons: [],
    occasions: [],
    provenance_tags: ['community_taxonomy'],
    provenance: [{ source: 'community_taxonomy', fields: supplied, recorded_at: importedAt, origin: `${layout} ${canonicalUrl(m.url)}` }],
    au_availability: { available: false, price_min_aud: null, price_max_aud: null, checked_at: null },
    au_offers: [],
    updated_at: importedAt,
  };
}

/**
 * Fragrantica's public CSV: `;`-separated, names and brands as URL slugs, ratings 1–5 with a
 * decimal comma, notes as comma lists, `unknown` for a missing perfumer, gender
 * `women`/`men`/`unisex` (empty: the record has none).
 */
export const FRAGRANTICA: CsvLayout = {
  delimiter: ';',
  columns: [
    'url',
    'Perfume',
    'Brand',
    'Country',
    'Gender',
    'Rating Value',
    'Rating Count',
    'Year',
    'Top',
    'Middle',
    'Base',
    'Perfumer1',
    'Perfumer2',
    'mainaccord1',
    'mainaccord2',
    'mainaccord3',
    'mainaccord4',
    'mainaccord5',
  ],
  toRecord: (row, importedAt) =>
    record(
      {
        url: required('url', row.url),
        name: displayName(required('Perfume', row.Perfume)),
        brand: displayName(required('Brand', row.Brand)),
        country: countryCode(row.Country),
        concentration: undefined,
        gender: gender('Gender', row.Gender),
        average: rating('Rating Value', row['Rating Value'], 5),
        votes: count('Rating Count', row['Rating Count']),
        year: year('Year', row.Year),
        top: list(row.Top),
        heart: list(row.Middle),
        base: list(row.Base),
        perfumers: perfumers([row.Perfumer1 ?? '', row.Perfumer2 ?? '']),
        accords: [row.mainaccord1, row.mainaccord2, row.mainaccord3, row.mainaccord4, row.mainaccord5].flatMap((a) => list(a)),
      },
      'fragrantica-csv',
      importedAt,
    ),
};

/** Parfumo's public CSV: `,`-separated with quoted lists, `NA` for missing values, ratings 0–10. */
export const PARFUMO: CsvLayout = {
  delimiter: ',',
  columns: [
    'Number',
    'Name',
    'Brand',
    'Release_Year',
    'Concentration',
    'Rating_Value',
    'Rating_Count',
    'Main_Accords',
    'Top_Notes',
    'Middle_Notes',
    'Base_Notes',
    'Perfumers',
    'URL',
  ],
  toRecord: (row, importedAt) => {
    const listedName = displayName(required('Name', row.Name));
    const brand = displayName(required('Brand', row.Brand));
    const released = year('Release_Year', row.Release_Year);
    return record(
      {
        url: required('URL', row.URL),
        name: withoutVariantTail(listedName, brand, released, row.Concentration),
        listedName,
        brand,
        country: countryCode(undefined),
        concentration: row.Concentration,
        average: rating('Rating_Value', row.Rating_Value, 10),
        votes: count('Rating_Count', row.Rating_Count),
        year: released,
        top: list(row.Top_Notes),
        heart: list(row.Middle_Notes),
        base: list(row.Base_Notes),
        perfumers: perfumers(list(row.Perfumers)),
        accords: list(row.Main_Accords).map((a) => a.toLowerCase()),
      },
      'parfumo-csv',
      importedAt,
    );
  },
};

export const CSV_LAYOUTS: Readonly<Record<Exclude<ImportFormat, 'ndjson'>, CsvLayout>> = {
  'fragrantica-csv': FRAGRANTICA,
  'parfumo-csv': PARFUMO,
};
