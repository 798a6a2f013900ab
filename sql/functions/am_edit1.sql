-- True when a and b are at most one edit apart: insert, delete or substitute one
-- character, or swap two adjacent ones (optimal string alignment distance <= 1).
create or replace function am_edit1(a text, b text) returns boolean
  language plpgsql immutable strict parallel safe
  as $$
declare
  la int := char_length(a);
  lb int := char_length(b);
  p int := 1;
begin
  if abs(la - lb) > 1 then
    return false;
  end if;
  while p <= least(la, lb) and substr(a, p, 1) = substr(b, p, 1) loop
    p := p + 1;
  end loop;
  if la = lb then
    return substr(a, p + 1) = substr(b, p + 1)
        or (substr(a, p, 1) = substr(b, p + 1, 1) and substr(a, p + 1, 1) = substr(b, p, 1)
            and substr(a, p + 2) = substr(b, p + 2));
  elsif la > lb then
    return substr(a, p + 1) = substr(b, p);
  else
    return substr(a, p) = substr(b, p + 1);
  end if;
end $$;
