import CloudUpload from '@mui/icons-material/CloudUpload';
import ImageSearch from '@mui/icons-material/ImageSearch';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';

interface StudiesEmptyStateProps {
  /** The search that found nothing; empty when the project has no studies at all. */
  search: string;
  onUpload: () => void;
}

/** No studies: either nothing processed holds DICOM yet (offer the upload), or the search found none. */
export function StudiesEmptyState({ search, onUpload }: StudiesEmptyStateProps) {
  const searching = search.trim() !== '';
  return (
    <Box role="group" aria-labelledby="studies-empty-title" sx={{ textAlign: 'center', py: 5, px: 2 }}>
      <ImageSearch sx={{ fontSize: 48, color: 'text.disabled' }} aria-hidden="true" />
      <Typography id="studies-empty-title" variant="h6" component="p" sx={{ overflowWrap: 'anywhere' }}>
        {searching ? `No studies match "${search.trim()}"` : 'No DICOM studies yet'}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1, mb: 2 }}>
        {searching
          ? 'The search looks in patient names and IDs, study descriptions and Study Instance UIDs.'
          : "Studies appear here once this project's uploads have been processed and found to hold DICOM images."}
      </Typography>
      {!searching && (
        <Button variant="contained" startIcon={<CloudUpload />} onClick={onUpload}>
          Upload Files
        </Button>
      )}
    </Box>
  );
}
