-- The text similar facts are compared by (am_similar_facts; kept in
-- facts.duplicate_text): the lowercased words without English function words,
-- so "How to deploy the API" and "deploy API" compare as alike. Japanese and
-- Chinese runs are split by script: kana runs of hiragana are dropped (mostly
-- particles and endings), katakana runs kept whole, kanji runs as their
-- overlapping pairs, the way the words of those languages are written.
create or replace function am_duplicate_text(p_head text) returns text
  language plpgsql immutable strict parallel safe
  as $$
declare
  v_word text;
  v_run text;
  v_text text := '';
  v_i int;
  -- Hiragana, katakana (with the half-width forms), kanji and 々.
  v_cjk boolean := p_head ~ '[\u3040-\u30ff\uff66-\uff9f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005-\u3007\u303b\U00020000-\U0003ffff]';
begin
  foreach v_word in array regexp_split_to_array(lower(p_head), '[^[:alnum:]]+') loop
    if v_word = '' then
      continue;
    end if;
    if v_cjk and v_word ~ '[\u3040-\u30ff\uff66-\uff9f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005-\u3007\u303b\U00020000-\U0003ffff]' then
      for v_run in
        select m[1] from regexp_matches(v_word, '[\u3040-\u309f\u30fc]+|[\u30a0-\u30ff\uff66-\uff9f]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005-\u3007\u303b\U00020000-\U0003ffff]+|[^\u3040-\u30ff\uff66-\uff9f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005-\u3007\u303b\U00020000-\U0003ffff]+', 'g') as m
      loop
        if v_run ~ '^[\u3040-\u309f\u30fc]' then
          continue;
        elsif v_run ~ '^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005-\u3007\u303b\U00020000-\U0003ffff]' and char_length(v_run) > 1 then
          for v_i in 1 .. char_length(v_run) - 1 loop
            v_text := v_text || ' ' || substr(v_run, v_i, 2);
          end loop;
        else
          v_text := v_text || ' ' || v_run;
        end if;
      end loop;
    elsif not (v_word = any ('{i,me,my,myself,we,our,ours,ourselves,you,your,yours,yourself,yourselves,
      he,him,his,himself,she,her,hers,herself,it,its,itself,they,them,their,theirs,
      themselves,what,which,who,whom,this,that,these,those,am,is,are,was,were,
      be,been,being,have,has,had,having,do,does,did,doing,a,an,the,and,but,if,
      or,because,as,until,while,of,at,by,for,with,about,against,between,into,through,
      during,before,after,above,below,to,from,up,down,in,out,on,off,over,under,
      again,further,then,once,here,there,when,where,why,how,all,any,both,each,
      few,more,most,other,some,such,no,nor,not,only,own,same,so,than,too,very,
      s,t,can,will,just,don,should,now}'::text[])) then
      v_text := v_text || ' ' || v_word;
    end if;
  end loop;
  return ltrim(v_text);
end $$;
