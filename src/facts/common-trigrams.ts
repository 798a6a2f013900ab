// Three-letter pieces so common in technical English that the trigram index
// holds long lists of facts for each (found in at least 5% of the paragraphs
// of the README.md files of the npm dependencies; bench/common-trigrams.ts
// derives the list). Recall leaves them out of the pattern it asks the index
// for (src/facts/index-pattern.ts). The list only makes a recall faster or
// slower; what a recall finds never depends on it.
export const COMMON_TRIGRAMS: ReadonlySet<string> = new Set(
  [
  "abl ace ach ack act add age ail ain ali all als alu ame amp anc and ang ant any",
  "app ara ard are arg arr ars art ary ase ass ast atc ate ath ati att atu aul ava",
  "ave bac bje ble bra bui but cal can cat cen ces cha che cif cka cod com con cre",
  "cri cte cti cur dat ded def den dep der des din dis doc dow dul ead eas eat eci",
  "eco ect edi efa efi eme enc end ene ens ent epe equ era ere eri ern err ers ert",
  "esc ese ess est ete eth etu eve exa exp ext fal fau fer ffe fie fil fin for fro",
  "ful fun gen ges get gin git han har has hat hav hen her hes hic hin his hou hro",
  "htt hub ial ica ich ide ies ifi igh ign ild ile ill ima ime img imp inc ind ine",
  "ing ini ins int ion ipt ire ist ite ith iti its ity ive jec kag lar lat lea led",
  "les lic lin lis lit llo lly loa low lso lue man mas mat men mes met min mit mjs",
  "mod mor mpl nal nam nce nch nct nde ned ner nge nin nly nod not npm nse nsi nst",
  "nta nte nti nts oad obj ode odu oll ome omm omp ona one onl ons ont ook ope opt",
  "ord ore org ork orm ors ort ost ote oth oul oun our out ove own ows pac par pas",
  "pat pec pen per pes pla ple pli pmj por pos ppo pre pro pti put que rac ram ran",
  "rat ray rce rea rec red ref reg ren rep req res ret rin rip rit rma rns rom rop",
  "ror rou row rra rre rro rse rsi rte rti rts rue run scr sed see ser ses set sho",
  "sin sio son sou spe sse ssi sta ste sti str sup svg tai tan tar tat tch ted ten",
  "ter tes tha the thi tho thu tic tim tin tio tiv tor tps tra tre tri tru tte ttp",
  "tur typ ues uil uld ule ull ult ume unc und upp urc ure url urn use usi ust val",
  "ven ver vid whe whi wil win wit wor xam you ype",
  ]
    .join(" ")
    .split(" "),
);
