import Box from '@mui/material/Box';

/** The bulk-delete dialog names what it deletes: the first few, then how many more. */
export const NAMES_SHOWN = 5;

export function BulkDeleteNames({ names }: { names: readonly string[] }) {
  const shown = names.slice(0, NAMES_SHOWN);
  const more = names.length - shown.length;
  return (
    <Box component="ul" aria-label="Files to delete" sx={{ m: 0, pl: 2.5 }}>
      {shown.map((name, index) => (
        // Names may repeat (the same file sent twice); their place in the list tells them apart.
        <li key={`${index}-${name}`}>{name}</li>
      ))}
      {more > 0 && <Box component="li" sx={{ listStyle: 'none', ml: -2.5, fontWeight: 400 }}>{`and ${more} more`}</Box>}
    </Box>
  );
}
