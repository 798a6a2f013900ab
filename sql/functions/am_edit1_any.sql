-- True when v is at most one edit (am_edit1) from one of the forms.
create or replace function am_edit1_any(v text, forms text[]) returns boolean
  language plpgsql immutable strict parallel safe
  set search_path from current
  as $$
begin
  return exists (select 1 from unnest(forms) as f where am_edit1(v, f));
end $$;
