import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import OutlinedInput from '@mui/material/OutlinedInput';
import { useId, type ChangeEvent, type ReactNode, type Ref } from 'react';

interface OutlinedFieldProps {
  label: string;
  name: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
  type?: string;
  autoComplete?: string;
  autoFocus?: boolean;
  error?: boolean;
  helperText?: string;
  inputRef?: Ref<HTMLInputElement>;
  endAdornment?: ReactNode;
}

/**
 * An outlined TextField as the sign-in screen needs it, built from its parts: MUI's TextField
 * imports Select (with Menu, Popover and Modal) for its `select` variant, 40 KB the first load
 * would send for nothing (issue 36). Same look, label and helper text tied to the input.
 */
export function OutlinedField({ label, name, helperText, error, endAdornment, ...input }: OutlinedFieldProps) {
  const id = useId();
  const helperId = helperText ? `${id}-helper-text` : undefined;
  return (
    <FormControl variant="outlined" fullWidth margin="normal" error={error}>
      <InputLabel htmlFor={id}>{label}</InputLabel>
      <OutlinedInput id={id} name={name} label={label} endAdornment={endAdornment} aria-describedby={helperId} {...input} />
      {helperText && <FormHelperText id={helperId}>{helperText}</FormHelperText>}
    </FormControl>
  );
}
