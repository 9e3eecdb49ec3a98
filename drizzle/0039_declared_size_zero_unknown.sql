-- A catalogue that declares a file of 0 bytes does not know its size (HDX's API links, CKAN
-- resources nobody filled in): the readers now take 0 as unknown. What earlier harvests kept is made
-- the same, so that the next run does not see every such file as declaring a new size, queueing it
-- to be checked again, and a capture does not report that its bytes differ from «0 bytes».
UPDATE harvested_records SET declared_size = NULL WHERE declared_size = 0;
