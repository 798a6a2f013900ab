-- The duplicate warning reads Japanese and Chinese as words, not as sentences.
--
-- pg_trgm splits text into words at every character that is not a letter or a
-- digit, and Japanese and Chinese are written without spaces: a whole clause
-- ("本番デプロイの前に必ずマイグレーションを流す") was one word, compared by its
-- character trigrams, which a rewording shares few of. On the labelled pairs
-- of test/facts/similar-pairs.ts the warning missed 10 of 12 Japanese
-- rewordings at the service's threshold (0.43), and no different Japanese fact
-- came near it: the measure was blind, not strict.
--
-- Now a word that holds Japanese or Chinese letters is cut where the script
-- changes, and each piece becomes words of its own: a run of kanji (hanzi)
-- becomes its overlapping pairs ("日曜日" → "日曜 曜日"), the usual way to
-- index text without spaces (as pg_bigm does); a run of katakana stays whole
-- (loanwords: "マイグレーション"); a run of hiragana is left out, as English
-- function words are (particles and endings: "の", "を", "ではなく",
-- "される"); Latin letters and digits stay words. On the same pairs: 3 of 12
-- Japanese rewordings missed (0.20, 0.41, 0.4286), still no different Japanese
-- fact listed (the closest, two timeouts "30秒でタイムアウトする", 0.4255).
-- Korean is written with spaces and is read as before (of its 16 pairs one
-- rewording missed and one different fact listed, with either reading; cutting
-- Hangul into pairs made five errors).
--
-- Text without kana or kanji goes through the loop of 000042 unchanged, so the
-- stored duplicate_text of every other fact stays as it is: only the facts
-- whose reading changes are written again below (the column is stored; an
-- UPDATE computes it anew). Cost: one more regular expression test a call
-- (English text ~9-12 µs a call, as before within noise); Japanese text ~21 µs.
--
-- Writes to facts wait until this migration commits (reads go on): a service
-- still running the old code while it runs would otherwise store the old
-- reading for a fact written meanwhile, which the update below cannot see
-- (found by review: one such fact in a migration of 20,000 Japanese facts).
-- The update took 8.6 s for 20,000 Japanese facts; a team without Japanese or
-- Chinese facts waits for one scan of the table.
lock table facts in share row exclusive mode;

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

-- The facts whose reading changes: the lifecycle trigger lets an update that
-- changes nothing through, and the vocabulary trigger does not fire (no word of
-- the fact changed). The regular expression keeps the function off the other rows.
update facts set name = name
 where name || ' ' || description ~ '[\u3040-\u30ff\uff66-\uff9f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005-\u3007\u303b\U00020000-\U0003ffff]'
   and duplicate_text is distinct from am_duplicate_text(name || ' ' || description);
