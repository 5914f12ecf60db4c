import type { TProjectStudies, TProjectStudy } from '@portal/contract';

export function aStudy(overrides: Partial<TProjectStudy> = {}): TProjectStudy {
  return {
    study_instance_uid: '1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.1',
    patient_name: 'Doe, Peter',
    patient_id: '98890234',
    study_date: '20010101',
    study_description: 'Chest CT',
    modalities: ['CT'],
    series: [{ series_instance_uid: '1.2.3.6', modality: 'CT', series_description: 'SmartScore - Gated 0.5 sec', instances: 5 }],
    instances: 5,
    sources: [
      { file_id: 12, file: 'first.zip' },
      { file_id: 13, file: 'second.zip' },
    ],
    ...overrides,
  };
}

/** The server's answer for one page of studies, with the total of every match. */
export function studiesPage(data: TProjectStudy[], page = { page: 1, per_page: 5, total: data.length }): TProjectStudies {
  return { data, page };
}
