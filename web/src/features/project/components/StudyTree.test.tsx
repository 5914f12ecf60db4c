import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../test/render';
import { StudyTree } from './StudyTree';

describe('StudyTree', () => {
  it("reads DICOM descriptions as words, and says 'no description' where there is none", () => {
    renderWithProviders(
      <StudyTree
        projectId={7}
        studies={[
          {
            study_instance_uid: '1.2.3',
            study_date: '20260301',
            study_description: 'abdomen^liver',
            series: [
              { series_instance_uid: '1.2.3.1', modality: 'CT', series_description: null, instances: 1 },
              { series_instance_uid: '1.2.3.2', modality: 'CT', series_description: 'Arterial^phase', instances: 2 },
            ],
          },
          { study_instance_uid: '1.2.4', study_date: null, study_description: null, series: [] },
        ]}
      />,
    );
    expect(screen.getByText('abdomen liver · 2026-03-01')).toBeInTheDocument();
    expect(screen.getByText('CT · no description')).toBeInTheDocument();
    expect(screen.getByText('CT · Arterial phase')).toBeInTheDocument();
    expect(screen.getByText('no description')).toBeInTheDocument();
    expect(screen.queryByText(/Untitled|\^/)).not.toBeInTheDocument();
  });
});
