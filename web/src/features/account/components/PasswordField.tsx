import Visibility from '@mui/icons-material/Visibility';
import VisibilityOff from '@mui/icons-material/VisibilityOff';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import { useState } from 'react';

interface PasswordFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
  autoComplete: string;
  error?: boolean;
  helperText?: string;
  autoFocus?: boolean;
}

export function PasswordField({ label, value, onChange, disabled, autoComplete, error, helperText, autoFocus }: PasswordFieldProps) {
  const [shown, setShown] = useState(false);
  return (
    <TextField
      label={label}
      type={shown ? 'text' : 'password'}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      disabled={disabled}
      autoComplete={autoComplete}
      error={error}
      helperText={helperText}
      autoFocus={autoFocus}
      fullWidth
      margin="dense"
      slotProps={{
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <IconButton
                aria-label={`${shown ? 'Hide' : 'Show'} ${label.toLowerCase()}`}
                onClick={() => setShown((s) => !s)}
                edge="end"
                disabled={disabled}
              >
                {shown ? <VisibilityOff /> : <Visibility />}
              </IconButton>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}
